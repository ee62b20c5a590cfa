// Guard-to-bound hoisting on hand-built IR: before and expected, compared as printed IR.
#include "common/lower/hoist_guard_bounds.h"

#include <catch2/catch.hpp>

#include "common/ir/printer.h"

using namespace mrd;
using namespace mrd::ir;

namespace {

Expr i64(int64_t v) { return IntImmNode::make(DType::Int64, v); }
Expr bin(BinaryOp op, Expr a, Expr b) { return BinaryNode::make(op, std::move(a), std::move(b)); }

}  // namespace

TEST_CASE("hoist_guard_bounds turns +-v + rest conjuncts into the loop's bounds", "[lower][hoist_guard_bounds]") {
  Buffer b = BufferNode::make("b", DType::Float32, {12});
  Var io("io"), ii("ii");
  Expr row = io * 4 + ii;
  Stmt st = StoreNode::make(b, {row}, Expr(1.0f));
  // likely(io * 4 + ii < 10 && io * 4 + ii >= 1 && floormod(ii, 2) == 0)
  Expr odd = floormod(ii, Expr(2)) == Expr(0);
  Stmt before = ForNode::make(ii, Expr(0), Expr(4), ForKind::Serial,
                              IfThenElseNode::make(likely((row < Expr(10)) && (row >= Expr(1)) && odd), st));
  Stmt out = lower::hoist_guard_bounds(before);
  // rest = -10 + io * 4: ii < -rest; rest = -1 + io * 4: ii >= -rest.
  Expr rest_hi = bin(BinaryOp::Add, i64(-10), bin(BinaryOp::Mul, cast(DType::Int64, io), i64(4)));
  Expr rest_lo = bin(BinaryOp::Add, i64(-1), bin(BinaryOp::Mul, cast(DType::Int64, io), i64(4)));
  Expr upper = bin(BinaryOp::Min, i64(4), bin(BinaryOp::Sub, i64(0), rest_hi));
  Expr lower = bin(BinaryOp::Max, i64(0), bin(BinaryOp::Sub, i64(0), rest_lo));
  Expr min = cast(DType::Int32, bin(BinaryOp::Min, lower, i64(4)));
  Expr end = cast(DType::Int32, bin(BinaryOp::Max, upper, i64(0)));
  Stmt expected = ForNode::make(ii, min, bin(BinaryOp::Sub, end, min), ForKind::Serial, IfThenElseNode::make(odd, st));
  CHECK(to_string(out) == to_string(expected));
  // The extent is `end - min` with the loop's own min node.
  const auto* f = out.as<ForNode>();
  REQUIRE(f != nullptr);
  CHECK(f->extent.as<BinaryNode>()->b.same_as(f->min));
}

TEST_CASE("hoist_guard_bounds leaves guards without a +-v bound", "[lower][hoist_guard_bounds]") {
  Buffer b = BufferNode::make("b", DType::Float32, {12});
  Var i("i");
  Stmt st = StoreNode::make(b, {i}, Expr(1.0f));
  Stmt twice = ForNode::make(i, Expr(0), Expr(6), ForKind::Serial, IfThenElseNode::make(i * 2 < Expr(7), st));
  CHECK(lower::hoist_guard_bounds(twice).same_as(twice));
  Stmt vectorized = ForNode::make(i, Expr(0), Expr(6), ForKind::Vectorized, IfThenElseNode::make(i < Expr(5), st));
  CHECK(lower::hoist_guard_bounds(vectorized).same_as(vectorized));
}
