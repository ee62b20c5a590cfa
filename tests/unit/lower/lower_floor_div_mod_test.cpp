// TVM's LowerIntrin forms of floordiv and floormod on hand-built IR: which form each case takes
// (compared as printed IR) and that each still computes what it computed before, for negative
// dividends and divisors too (primfunc evaluator).
#include "common/lower/lower_floor_div_mod.h"

#include <catch2/catch.hpp>

#include "common/interp/primfunc_eval.h"
#include "common/ir/printer.h"
#include "tests/unit/codegen/primfunc_builders.h"

using namespace mrd;
using namespace mrd::ir;
using mrd::test::load;

namespace {

constexpr int kLanes = 4;
constexpr int kTrips = 11;

/// for (i = 0; i < 11; ++i) out[i] = value, where the value may read in[0:8] (integers from
/// -9 to 7, with a zero-free half in[4:8] to divide by).
struct Kernel {
  Buffer in = BufferNode::make("in", DType::Float32, {8});
  Buffer out = BufferNode::make("out", DType::Float32, {kTrips * kLanes});
  Var i{"i"};
  /// An int32 read of in[k]: a value whose range nothing knows.
  Expr value(int k) const { return CastNode::make(DType::Int32, load(in, Expr(k))); }
  Expr values(int first) const {
    return CastNode::make(DType::Int32, load(in, RampNode::make(Expr(first), Expr(1), kLanes)));
  }
  Stmt loop(const Expr& v) const {
    Expr at = v->lanes > 1 ? RampNode::make(i * kLanes, Expr(1), kLanes) : Expr(i);
    return ForNode::make(i, 0, kTrips, ForKind::Serial, mrd::test::store(out, at, CastNode::make(DType::Float32, v)));
  }
  std::vector<double> run(const Stmt& body) const {
    std::vector<double> x{-9, 7, -4, 0, 3, -5, 2, -1}, y(kTrips * kLanes, 0);
    interp::eval_primfunc(PrimFunc{{in, out}, body}, {&x, &y});
    return y;
  }
};

Expr bcast(int v) { return BroadcastNode::make(Expr(v), kLanes); }
Expr div(const Expr& a, const Expr& b) { return BinaryNode::make(BinaryOp::Div, a, b); }

/// Lowers out[i] = before, checks the printed form against `want` and the values against the
/// unlowered loop's.
void check(const Kernel& k, const Expr& before, const Expr& want) {
  Stmt s = k.loop(before);
  Stmt after = lower::lower_floor_div_mod(s);
  INFO(to_string(s) << "\nbecame\n" << to_string(after));
  CHECK(to_string(after) == to_string(k.loop(want)));
  CHECK(k.run(after) == k.run(s));
}

}  // namespace

TEST_CASE("lower_floor_div_mod: a power-of-two divisor is a shift and a mask", "[lower][lower_floor_div_mod]") {
  Kernel k;
  check(k, floordiv(k.i - 5, 4), shift_right(k.i - 5, Expr(2)));
  check(k, floormod(k.i - 5, 4), bitwise_and(k.i - 5, Expr(3)));
  check(k, floordiv(k.value(0), 8), shift_right(k.value(0), Expr(3)));
}

TEST_CASE("lower_floor_div_mod: a dividend the loop ranges prove non-negative divides truncating",
          "[lower][lower_floor_div_mod]") {
  Kernel k;
  check(k, floordiv(k.i * 2 + 1, 3), div(k.i * 2 + 1, Expr(3)));
  check(k, floormod(k.i * 2 + 1, 3), truncmod(k.i * 2 + 1, Expr(3)));
  // Over every lane of a ramp, and by a broadcast power of two, which TVM does not shift.
  Expr lanes = RampNode::make(k.i * 4, Expr(1), kLanes);
  check(k, floordiv(lanes, bcast(3)), div(lanes, bcast(3)));
  check(k, floormod(lanes, bcast(8)), truncmod(lanes, bcast(8)));
  // Unsigned values are never negative, whatever their range.
  Expr u = CastNode::make(DType::UInt32, load(k.in, Expr(4))), w = CastNode::make(DType::UInt32, load(k.in, Expr(6)));
  check(k, floordiv(u, w), div(u, w));
  check(k, floormod(u, w), truncmod(u, w));
}

TEST_CASE("lower_floor_div_mod: a dividend with a known negative least value is offset to stay non-negative",
          "[lower][lower_floor_div_mod]") {
  Kernel k;
  // i - 5 >= -5: c = truncdiv(3 - 1 + 5, 3) = 2, and i - 5 + 3 * 2 = i + 1.
  check(k, floordiv(k.i - 5, 3), div(k.i + 1, Expr(3)) - Expr(2));
  check(k, floormod(k.i - 5, 3), truncmod(k.i + 1, Expr(3)));
  Expr lanes = RampNode::make(k.i * 4 - 7, Expr(1), kLanes);
  check(k, floordiv(lanes, bcast(5)), div(RampNode::make(k.i * 4 + 3, Expr(1), kLanes), bcast(5)) - bcast(2));
}

TEST_CASE("lower_floor_div_mod: an unbounded dividend corrects the truncated quotient by the remainder's sign",
          "[lower][lower_floor_div_mod]") {
  Kernel k;
  Expr a = k.value(0);
  // Scalar int32: the sign bit of the remainder, TVM's rdiv + (rmod >> 31).
  check(k, floordiv(a, 3), div(a, Expr(3)) + shift_right(truncmod(a, Expr(3)), Expr(31)));
  check(k, floormod(a, 3), truncmod(a, Expr(3)) + bitwise_and(Expr(3), shift_right(truncmod(a, Expr(3)), Expr(31))));
  // Vectors take TVM's selects.
  Expr v = k.values(0);
  Expr rdiv = div(v, bcast(3)), rmod = truncmod(v, bcast(3));
  check(k, floordiv(v, bcast(3)), SelectNode::make(rmod >= bcast(0), rdiv, rdiv - bcast(1)));
  check(k, floormod(v, bcast(3)), SelectNode::make(rmod >= bcast(0), rmod, rmod + bcast(3)));
}

TEST_CASE("lower_floor_div_mod: a divisor of unknown sign selects on both signs", "[lower][lower_floor_div_mod]") {
  Kernel k;
  Expr a = k.value(0) + k.i, b = k.value(5);  // b = -5
  Expr rdiv = div(a, b), rmod = truncmod(a, b);
  Expr agrees = (b >= Expr(0) && rmod >= Expr(0)) || (b < Expr(0) && rmod <= Expr(0));
  check(k, floordiv(a, b), SelectNode::make(agrees, rdiv, rdiv - Expr(1)));
  check(k, floormod(a, b), SelectNode::make(agrees, rmod, rmod + b));
}

TEST_CASE("lower_floor_div_mod: max of a floordiv and a floormod compared with zero truncate, as in TVM",
          "[lower][lower_floor_div_mod]") {
  Kernel k;
  Expr a = k.value(0);
  check(k, max(floordiv(a, 4), Expr(0)), max(div(a, Expr(4)), Expr(0)));
  Expr cond = floormod(a, 3) == Expr(0);
  check(k, SelectNode::make(cond, a, Expr(1)), SelectNode::make(truncmod(a, Expr(3)) == Expr(0), a, Expr(1)));
  Expr ne = floormod(k.i - 5, 2) != Expr(0);
  check(k, SelectNode::make(ne, a, Expr(1)), SelectNode::make(truncmod(k.i - 5, Expr(2)) != Expr(0), a, Expr(1)));
}

TEST_CASE("lower_floor_div_mod: nested divisions are lowered inside out", "[lower][lower_floor_div_mod]") {
  Kernel k;
  // floordiv(i - 5, 4) is (i - 5) >> 2 >= -2; the outer division then offsets it.
  Expr inner = shift_right(k.i - 5, Expr(2));
  check(k, floordiv(floordiv(k.i - 5, 4), 3), div(inner + Expr(3), Expr(3)) - Expr(1));
}

TEST_CASE("lower_floor_div_mod: the offset form is refused where a + b*c would wrap, and a zero divisor is left to the program",
          "[lower][lower_floor_div_mod]") {
  Kernel k;
  // int8 values in [-100, 100]: c = 34 would need 100 + 102, past int8's 127.
  Expr a = CastNode::make(DType::Int8, k.i * 20 - Expr(100));
  Expr three = IntImmNode::make(DType::Int8, 3);
  Expr rdiv = div(a, three), rmod = truncmod(a, three);
  check(k, floordiv(a, three), SelectNode::make(rmod >= IntImmNode::make(DType::Int8, 0), rdiv,
                                                rdiv - IntImmNode::make(DType::Int8, 1)));
  CHECK_NOTHROW(lower::lower_floor_div_mod(k.loop(floordiv(k.i - 5, Expr(0)))));
}

TEST_CASE("lower_floor_div_mod: a vector let's range covers every lane", "[lower][lower_floor_div_mod]") {
  Kernel k;
  Var v("v", DType::Int32, kLanes);
  Expr lanes = RampNode::make(k.i * 4 - Expr(7), Expr(1), kLanes);
  auto body = [&](const Expr& value) {
    Stmt st = mrd::test::store(k.out, RampNode::make(k.i * kLanes, Expr(1), kLanes), CastNode::make(DType::Float32, value));
    return ForNode::make(k.i, 0, kTrips, ForKind::Serial, LetNode::make(v, lanes, st));
  };
  Stmt s = body(floordiv(v, bcast(5)));
  Stmt after = lower::lower_floor_div_mod(s);
  INFO(to_string(after));
  // v >= -7 in every lane: c = 2, and v + 10 is divided.
  CHECK(to_string(after) == to_string(body(div(v + bcast(10), bcast(5)) - bcast(2))));
  CHECK(k.run(after) == k.run(s));
}
