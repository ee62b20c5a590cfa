// The shared integer analysis: constant ends of expressions with unknown variables.
#include "common/lower/arith.h"

#include <catch2/catch.hpp>

using namespace mrd;
using namespace mrd::ir;

TEST_CASE("const_ends keeps each end that holds for any value of the variables", "[lower][arith]") {
  Var x("x"), y("y");
  auto ends = [](const Expr& e) { return lower::const_ends(e); };
  auto i64 = [](int64_t v) { return IntImmNode::make(DType::Int64, v); };
  lower::ConstEnds m = ends(min(x, Expr(4)));
  CHECK(!m.lo);
  CHECK(m.hi == 4);
  m = ends(max(x, Expr(0)));
  CHECK(m.lo == 0);
  CHECK(!m.hi);
  // A clamp into [0, 4] in int64, cast back to int32: both ends.
  Expr clamp = cast(DType::Int32, min(max(i64(0), cast(DType::Int64, y)), i64(4)));
  m = ends(clamp);
  CHECK(m.lo == 0);
  CHECK(m.hi == 4);
  // A narrowing cast of a half-known value could wrap: nothing.
  m = ends(cast(DType::Int32, max(i64(0), cast(DType::Int64, y))));
  CHECK(!m.lo);
  CHECK(!m.hi);
  // Sums need every end.
  CHECK(!ends(max(x, Expr(0)) + Expr(1)).lo);
  m = ends(min(max(x, Expr(0)), Expr(3)) + Expr(1));
  CHECK(m.lo == 1);
  CHECK(m.hi == 4);
}

TEST_CASE("lane_bound bounds every lane of a vector, and truncating divisions, shifts and masks",
          "[lower][arith]") {
  Var i("i"), x("x");
  lower::VarRanges r{{i.as<VarNode>(), {0, 10}}};
  auto bound = [&](const Expr& e) { return lower::lane_bound(e, r); };
  auto is = [](std::optional<lower::ConstRange> b, int64_t lo, int64_t hi) { return b && b->lo == lo && b->hi == hi; };
  // Lanes i*4 - 7 + k for k < 4, and a broadcast of i.
  Expr ramp = RampNode::make(i * 4 - Expr(7), Expr(1), 4);
  CHECK(is(bound(ramp), -7, 36));
  CHECK(is(bound(ramp + BroadcastNode::make(i, 4)), -7, 46));
  CHECK(is(bound(RampNode::make(Expr(20), Expr(-3), 4)), 11, 20));
  CHECK_FALSE(lower::const_bound(ramp, r));  // const_bound stays scalar
  // Truncation toward zero, remainders with the dividend's sign.
  CHECK(is(bound(BinaryNode::make(BinaryOp::Div, i - Expr(5), Expr(3))), -1, 1));
  CHECK(is(bound(BinaryNode::make(BinaryOp::Mod, i - Expr(5), Expr(3))), -2, 2));
  CHECK(is(bound(BinaryNode::make(BinaryOp::Mod, i, Expr(4))), 0, 3));
  CHECK(is(bound(BinaryNode::make(BinaryOp::Mod, i, Expr(20))), 0, 10));
  CHECK(is(bound(shift_right(i - Expr(5), Expr(2))), -2, 1));
  CHECK(is(bound(bitwise_and(i - Expr(5), Expr(3))), 0, 3));
  // What holds whatever an unknown value is: a mask, a floormod by a positive constant, and a
  // widening cast from a narrower integer type (its type's range).
  CHECK(is(bound(bitwise_and(x, Expr(7))), 0, 7));
  CHECK(is(bound(floormod(x, Expr(5))), 0, 4));
  Expr byte = cast(DType::Int8, x);
  CHECK(is(bound(cast(DType::Int32, byte)), -128, 127));
  CHECK(is(bound(cast(DType::Int32, cast(DType::UInt8, x))), 0, 255));
  CHECK_FALSE(bound(cast(DType::Int32, cast(DType::UInt32, x))));  // uint32 does not fit int32
  CHECK_FALSE(bound(cast(DType::Int8, x)));                        // narrowing: may wrap
  // Nothing for what depends on a variable without a range, or a divisor that is not a
  // positive constant.
  CHECK_FALSE(bound(BinaryNode::make(BinaryOp::Div, x, Expr(3))));
  CHECK_FALSE(bound(BinaryNode::make(BinaryOp::Div, i, i)));
  CHECK_FALSE(bound(BinaryNode::make(BinaryOp::Mod, i, Expr(-3))));
}
