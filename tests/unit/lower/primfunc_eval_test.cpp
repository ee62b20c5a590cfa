// The PrimFunc evaluator that lowering tests use as their oracle.
#include "common/interp/primfunc_eval.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "common/util/error.h"

using namespace mrd;
using namespace mrd::ir;

TEST_CASE("eval_primfunc runs loops, lets, ifs and allocations", "[interp][primfunc]") {
  Buffer in = BufferNode::make("in", DType::Float32, {4});
  Buffer out = BufferNode::make("out", DType::Float32, {4});
  Buffer tmp = BufferNode::make("tmp", DType::Float32, {4}, MemScope::Local);
  Var i("i"), j("j"), t("t");
  // tmp[i] = in[i] * 3; out[j] = (j < 3) ? tmp[j] + 1/3 : out[j] (untouched)
  Stmt fill = ForNode::make(i, Expr(0), Expr(4), ForKind::Serial,
                            StoreNode::make(tmp, {i}, BufferLoadNode::make(in, {i}) * Expr(3.0f)));
  Stmt use = ForNode::make(
      j, Expr(0), Expr(4), ForKind::Vectorized,
      IfThenElseNode::make(
          likely(j < Expr(3)),
          LetNode::make(t, j,
                        StoreNode::make(
                            out, {t}, BufferLoadNode::make(tmp, {t}) + Expr(1.0f) / Expr(3.0f)))));
  PrimFunc f{{in, out}, AllocateNode::make(tmp, SeqNode::make({fill, use}))};
  std::vector<double> a{1, 2, 3, 4}, b{-1, -1, -1, -1};
  interp::eval_primfunc(f, {&a, &b});
  CHECK(b[0] == static_cast<float>(3.0 + static_cast<float>(1.0f / 3.0f)));
  CHECK(b[2] == static_cast<float>(9.0f + static_cast<float>(1.0f / 3.0f)));
  CHECK(b[3] == -1);
}

TEST_CASE("eval_primfunc: integer floor semantics and fresh allocations are NaN",
          "[interp][primfunc]") {
  Buffer out = BufferNode::make("out", DType::Float32, {3});
  Buffer tmp = BufferNode::make("tmp", DType::Float32, {1});
  Stmt s = SeqNode::make(
      {StoreNode::make(out, {Expr(0)}, cast(DType::Float32, floordiv(Expr(-7), Expr(2)))),
       StoreNode::make(out, {Expr(1)}, cast(DType::Float32, floormod(Expr(-7), Expr(2)))),
       StoreNode::make(out, {Expr(2)}, BufferLoadNode::make(tmp, {Expr(0)}))});
  PrimFunc f{{out}, AllocateNode::make(tmp, s)};
  std::vector<double> o(3, 0);
  interp::eval_primfunc(f, {&o});
  CHECK(o[0] == -4);
  CHECK(o[1] == 1);
  CHECK(std::isnan(o[2]));
}

TEST_CASE("eval_primfunc rejects out-of-bounds accesses and wrong buffers", "[interp][primfunc]") {
  Buffer out = BufferNode::make("out", DType::Float32, {2});
  Var i("i");
  PrimFunc f{
      {out},
      ForNode::make(i, Expr(0), Expr(3), ForKind::Serial, StoreNode::make(out, {i}, Expr(1.0f)))};
  std::vector<double> o(2, 0), wrong(5, 0);
  CHECK_THROWS_WITH(interp::eval_primfunc(f, {&o}), Catch::Contains("outside buffer out"));
  CHECK_THROWS_AS(interp::eval_primfunc(f, {&wrong}), InternalError);
  CHECK_THROWS_AS(interp::eval_primfunc(f, {}), InternalError);
}
