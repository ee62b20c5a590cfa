// VectorizeLoop on hand-built loops: what becomes vectors, what stays a loop, what is
// scalarized; each result evaluated against the function before the pass.
#include <catch2/catch.hpp>

#include "common/interp/primfunc_eval.h"
#include "common/ir/printer.h"
#include "common/lower/vectorize_loop.h"

using namespace mrd;
using namespace mrd::ir;

namespace {

Expr load(const Buffer& b, Expr i) { return BufferLoadNode::make(b, {std::move(i)}); }
Stmt store(const Buffer& b, Expr i, Expr v) { return StoreNode::make(b, {std::move(i)}, std::move(v)); }

/// Evaluates f before and after the pass on the same inputs; every buffer must agree.
void check_same_results(const PrimFunc& f) {
  PrimFunc v{f.params, lower::vectorize_loop(f.body)};
  std::vector<std::vector<double>> a, b;
  for (const Buffer& p : f.params) {
    std::vector<double> data(p->num_elements());
    for (size_t i = 0; i < data.size(); ++i) data[i] = double((i * 7 + 3) % 11) - 5;
    a.push_back(data);
    b.push_back(data);
  }
  std::vector<std::vector<double>*> pa, pb;
  for (auto& x : a) pa.push_back(&x);
  for (auto& x : b) pb.push_back(&x);
  interp::eval_primfunc(f, pa);
  interp::eval_primfunc(v, pb);
  INFO(to_string(v.body));
  CHECK(a == b);
}

}  // namespace

TEST_CASE("vectorize_loop: a contiguous store becomes one vector store with ramps", "[lower]") {
  auto A = BufferNode::make("A", DType::Float32, {8, 16});
  auto B = BufferNode::make("B", DType::Float32, {8, 16});
  Var i("i"), j("j");
  Stmt body = ForNode::make(i, 0, 8, ForKind::Serial,
                            ForNode::make(j, 0, 16, ForKind::Vectorized,
                                          store(B, i * 16 + j, load(A, i * 16 + j) * Expr(2.0f) + load(A, i * 16))));
  Stmt v = lower::vectorize_loop(body);
  const ForNode* outer = v.as<ForNode>();
  REQUIRE(outer != nullptr);
  const StoreNode* s = outer->body.as<StoreNode>();
  REQUIRE(s != nullptr);
  CHECK(s->value->lanes == 16);
  REQUIRE(s->indices[0].as<RampNode>() != nullptr);
  CHECK(to_string(s->indices[0]) == "T.Ramp((i*16), 1, 16)");
  check_same_results(PrimFunc{{A, B}, body});
}

TEST_CASE("vectorize_loop: an inner loop keeps running with a vectorized body", "[lower]") {
  auto A = BufferNode::make("A", DType::Float32, {4, 8});
  auto C = BufferNode::make("C", DType::Float32, {8});
  Var j("j"), k("k");
  Stmt body = ForNode::make(j, 0, 8, ForKind::Vectorized,
                            ForNode::make(k, 0, 4, ForKind::Serial, store(C, j, load(C, j) + load(A, k * 8 + j))));
  Stmt v = lower::vectorize_loop(body);
  const ForNode* loop = v.as<ForNode>();
  REQUIRE(loop != nullptr);
  CHECK(loop->var.same_as(k));
  CHECK(loop->body.as<StoreNode>()->value->lanes == 8);
  check_same_results(PrimFunc{{A, C}, body});
}

TEST_CASE("vectorize_loop: lane-dependent conditions and reductions over the lanes scalarize", "[lower]") {
  auto A = BufferNode::make("A", DType::Float32, {16});
  auto B = BufferNode::make("B", DType::Float32, {16});
  auto S = BufferNode::make("S", DType::Float32, {1});
  Var j("j");
  // if (j < 5) B[j] = A[j]: the if stays scalar, inside a serial loop over the lanes.
  Stmt guarded = ForNode::make(j, 0, 16, ForKind::Vectorized, IfThenElseNode::make(j < 5, store(B, j, load(A, j))));
  Stmt g = lower::vectorize_loop(guarded);
  REQUIRE(g.as<ForNode>() != nullptr);
  CHECK(g.as<ForNode>()->for_kind == ForKind::Serial);
  check_same_results(PrimFunc{{A, B}, guarded});
  // S[0] = S[0] + A[j]: every lane writes one address, so the lanes run one by one.
  Var r("r");
  Stmt reduce = ForNode::make(r, 0, 16, ForKind::Vectorized, store(S, Expr(0), load(S, Expr(0)) + load(A, r)));
  Stmt s = lower::vectorize_loop(reduce);
  REQUIRE(s.as<ForNode>() != nullptr);
  CHECK(s.as<ForNode>()->for_kind == ForKind::Serial);
  check_same_results(PrimFunc{{A, S}, reduce});
}

TEST_CASE("vectorize_loop: erf and rsqrt of a lane-dependent value scalarize, floor stays a vector", "[lower]") {
  auto A = BufferNode::make("A", DType::Float32, {16});
  auto B = BufferNode::make("B", DType::Float32, {16});
  Var j("j");
  for (Expr (*scalar_only)(Expr) : {&ir::erf, &ir::rsqrt}) {
    Stmt loop = ForNode::make(j, 0, 16, ForKind::Vectorized, store(B, j, scalar_only(load(A, j) + Expr(6.0f))));
    Stmt v = lower::vectorize_loop(loop);
    INFO(to_string(v));
    REQUIRE(v.as<ForNode>() != nullptr);
    CHECK(v.as<ForNode>()->for_kind == ForKind::Serial);
    check_same_results(PrimFunc{{A, B}, loop});
    // Of a lane-invariant value it is one scalar call, broadcast.
    Stmt invariant = ForNode::make(j, 0, 16, ForKind::Vectorized, store(B, j, load(A, j) + scalar_only(load(A, Expr(0)) + Expr(6.0f))));
    CHECK(lower::vectorize_loop(invariant)->kind == StmtKind::Store);
  }
  Stmt rounding = ForNode::make(j, 0, 16, ForKind::Vectorized, store(B, j, floor(load(A, j) * Expr(0.5f))));
  Stmt v = lower::vectorize_loop(rounding);
  REQUIRE(v.as<StoreNode>() != nullptr);
  CHECK(v.as<StoreNode>()->value->lanes == 16);
  check_same_results(PrimFunc{{A, B}, rounding});
}

TEST_CASE("vectorize_loop: floordiv and floormod of a fused index keep ramps when the lanes allow", "[lower]") {
  auto A = BufferNode::make("A", DType::Float32, {4, 16});
  auto B = BufferNode::make("B", DType::Float32, {64});
  Var o("o"), l("l");
  Expr f = o * 8 + l;  // 8 lanes never cross a row of 16
  Stmt body = ForNode::make(o, 0, 8, ForKind::Serial,
                            ForNode::make(l, 0, 8, ForKind::Vectorized,
                                          store(B, f, load(A, floordiv(f, 16) * 16 + floormod(f, 16)))));
  Stmt v = lower::vectorize_loop(body);
  const StoreNode* s = v.as<ForNode>()->body.as<StoreNode>();
  REQUIRE(s != nullptr);
  const BufferLoadNode* ld = s->value.as<BufferLoadNode>();
  REQUIRE(ld != nullptr);
  CHECK(ld->indices[0].as<RampNode>() != nullptr);
  check_same_results(PrimFunc{{A, B}, body});
}
