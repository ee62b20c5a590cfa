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
