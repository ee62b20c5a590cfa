// Workloads built with the TE builder for the serialization tests: each returns its tensor
// list (inputs, then outputs) as a workload would be registered.
#pragma once

#include <vector>

#include "common/ir/te.h"

namespace mrd::serialize::testing {

using namespace ir;

inline std::vector<Tensor> matmul_dag() {
  Tensor A = placeholder({64, 32}, "A");
  Tensor B = placeholder({32, 16}, "B");
  IterVar k = reduce_axis(0, 32, "k");
  Tensor C =
      compute({64, 16}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C", {"i", "j"});
  return {A, B, C};
}

/// topi's dense: C = A * W^T, W layout-free (TVM's layout rewrite may re-lay it out).
inline std::vector<Tensor> dense_dag() {
  Tensor A = placeholder({8, 32}, "A");
  Tensor W = placeholder({16, 32}, "W");
  IterVar k = reduce_axis(0, 32, "k");
  Tensor C = compute({8, 16}, [&](Var i, Var j) { return sum(A(i, k) * W(j, k), {k}); }, "T_matmul_NT", {"i", "j"}, "dense");
  C = OperationNode::with_layout_free_placeholders(C.op(), {W.op()});
  return {A, W, C};
}

/// D is read by two ops (E and F).
inline std::vector<Tensor> matmul_add_dag() {
  Tensor A = placeholder({64, 32}, "A");
  Tensor B = placeholder({32, 16}, "B");
  Tensor D = placeholder({64, 16}, "D");
  IterVar k = reduce_axis(0, 32, "k");
  Tensor C = compute(
      {64, 16}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Tensor E = compute(
      {64, 16}, [&](Var i, Var j) { return C(i, j) + D(i, j); }, "E", {}, "elemwise");
  Tensor F = compute(
      {64, 16}, [&](Var i, Var j) { return E(i, j) * D(i, j); }, "F");
  return {A, B, D, F};
}

/// Zero padding by if_then_else, then a 3x3 convolution over three reduction axes.
inline std::vector<Tensor> conv2d_dag() {
  Tensor data = placeholder({1, 3, 8, 8}, "data");
  Tensor kernel = placeholder({4, 3, 3, 3}, "kernel");
  Tensor pad = compute(
      {1, 3, 10, 10},
      [&](Var n, Var c, Var h, Var w) {
        Expr inside = h >= 1 && h < 9 && w >= 1 && w < 9;
        return if_then_else(inside, data(n, c, h - 1, w - 1), Expr(0.0f));
      },
      "pad", {"n", "c", "h", "w"}, "injective,pad");
  IterVar rc = reduce_axis(0, 3, "rc");
  IterVar rh = reduce_axis(0, 3, "rh");
  IterVar rw = reduce_axis(0, 3, "rw");
  Tensor conv =
      compute({1, 4, 8, 8},
              [&](Var n, Var f, Var y, Var x) {
                return sum(pad(n, rc, y + rh, x + rw) * kernel(f, rc, rh, rw), {rc, rh, rw});
              },
              "conv", {"nn", "ff", "yy", "xx"});
  return {data, kernel, conv};
}

inline std::vector<Tensor> softmax_dag() {
  Tensor X = placeholder({4, 16}, "X");
  IterVar k = reduce_axis(0, 16, "k");
  Tensor mx = compute(
      {4}, [&](Var i) { return max(X(i, k), std::vector<IterVar>{k}); }, "T_max");
  Tensor ex = compute(
      {4, 16}, [&](Var i, Var j) { return exp(X(i, j) - mx(i)); }, "T_exp");
  IterVar k2 = reduce_axis(0, 16, "k2");
  Tensor s = compute(
      {4}, [&](Var i) { return sum(ex(i, k2), {k2}); }, "T_sum");
  Tensor out = compute(
      {4, 16}, [&](Var i, Var j) { return ex(i, j) / s(i); }, "T_softmax");
  return {X, out};
}

/// int32, int64 and float64 tensors, casts, select, floordiv/floormod, logic and a
/// conditional reduction.
inline std::vector<Tensor> mixed_dtype_dag() {
  Tensor I = placeholder({8}, "I", DType::Int32);
  Tensor L = placeholder({8}, "L", DType::Int64);
  Tensor F = placeholder({8}, "F", DType::Float64);
  Tensor G = compute(
      {8},
      [&](Var i) {
        Expr wide = cast(DType::Float64, L(i)) * F(i);
        Expr narrow = cast(DType::Float64, floordiv(I(i), 2));
        return select(I(i) > 3 && !(L(i) == int64_t{5}), wide, narrow) + pow(F(i), 2.0);
      },
      "G");
  Tensor H = compute(
      {8}, [&](Var i) { return floormod(L(i), int64_t{3}) + cast(DType::Int64, I(i)); }, "H");
  IterVar r = reduce_axis(0, 8, "r");
  Expr cond = I(r) != 0 || likely(r < 4);
  Tensor S = compute(
      {8},
      [&](Var i) {
        return ReduceNode::make(ReduceOp::Min, cast(DType::Int32, H(r)) * I(i), {r}, cond);
      },
      "S");
  return {I, L, F, G, S};
}

/// int8 and uint8 tensors (a quantized dense and a uint8 max with its constants), and a product.
inline std::vector<Tensor> quantized_dag() {
  Tensor X = placeholder({4, 8}, "X", DType::UInt8);
  Tensor W = placeholder({6, 8}, "W", DType::Int8);
  IterVar k = reduce_axis(0, 8, "k");
  Tensor D = compute(
      {4, 6},
      [&](Var i, Var j) {
        return sum(cast(DType::Int32, X(i, k)) * cast(DType::Int32, W(j, k)), {k});
      },
      "D");
  IterVar r = reduce_axis(0, 8, "r");
  Tensor M = compute(
      {4},
      [&](Var i) {
        return ReduceNode::make(ReduceOp::Max, X(i, r) - IntImmNode::make(DType::UInt8, 255), {r});
      },
      "M");
  Tensor Q = compute(
      {4, 6},
      [&](Var i, Var j) {
        return cast(DType::Int8, D(i, j)) + IntImmNode::make(DType::Int8, -128);
      },
      "Q");
  Tensor R = compute(
      {4}, [&](Var i) { return prod(cast(DType::Int32, X(i, r)), {r}); }, "R");
  return {X, W, M, Q, R};
}

/// Every one-argument math call, the two-argument pow and isnan (a bool call in a select).
inline std::vector<Tensor> math_calls_dag() {
  Tensor X = placeholder({8}, "X");
  Tensor Y = compute(
      {8},
      [&](Var i) {
        Expr (*const unary[])(Expr) = {exp, exp2, log, log2, log10, sqrt, rsqrt, sin, cos, tanh,
                                       sigmoid, fabs, erf, floor, ceil, trunc, round};
        Expr x = X(i), e = Expr(0.0f);
        for (auto f : unary) e = e + f(x);
        return e + pow(x, Expr(2.0f)) + select(isnan(x), Expr(1.0f), Expr(0.0f));
      },
      "Y");
  return {X, Y};
}

/// int16, uint16 and uint32 tensors, truncmod on integers and floats, every bitwise call and
/// both shifts (on bools too, for the bitwise ones).
inline std::vector<Tensor> integer_calls_dag() {
  Tensor A = placeholder({8}, "A", DType::Int16);
  Tensor B = placeholder({8}, "B", DType::UInt16);
  Tensor C = placeholder({8}, "C", DType::UInt32);
  Tensor D = compute(
      {8},
      [&](Var i) {
        Expr a = A(i), b = B(i);
        Expr bits = bitwise_and(a, b) + bitwise_or(a, b) + bitwise_xor(a, b) + bitwise_not(a);
        return bits + shift_left(a, 2) + shift_right(b, cast(DType::UInt16, i)) + truncmod(a, 3);
      },
      "D");
  Tensor E = compute(
      {8},
      [&](Var i) {
        Expr flag = bitwise_xor(C(i) > IntImmNode::make(DType::UInt32, 4000000000), i < 4);
        return select(bitwise_not(flag), truncmod(cast(DType::Float32, C(i)), Expr(2.5f)), Expr(0.0f));
      },
      "E");
  return {A, B, C, D, E};
}

}  // namespace mrd::serialize::testing
