// TVM's LowerIntrin rewrite of multiply-adds with a broadcast widening cast, on hand-built
// vector IR: which sums change and how (compared as printed IR), and that each still
// computes what it computed before (primfunc evaluator).
#include "common/lower/swap_broadcast_cast.h"

#include <catch2/catch.hpp>

#include "common/interp/primfunc_eval.h"
#include "common/ir/printer.h"
#include "tests/unit/codegen/primfunc_builders.h"

using namespace mrd;
using namespace mrd::ir;
using mrd::test::load;

namespace {

constexpr int kLanes = 4;

/// out[0:4] = value, with a = in[0] and v = in[0:4] as the value's operands.
struct Kernel {
  Buffer in = BufferNode::make("in", DType::Float32, {kLanes});
  Buffer out = BufferNode::make("out", DType::Float32, {kLanes});
  Expr a(DType t) const { return CastNode::make(t, load(in, Expr(1))); }
  Expr v(DType t) const { return CastNode::make(t, load(in, RampNode::make(Expr(0), Expr(1), kLanes))); }
  Stmt store(const Expr& value) const {
    return StoreNode::make(out, {RampNode::make(Expr(0), Expr(1), kLanes)}, CastNode::make(DType::Float32, value));
  }
  std::vector<double> run(const Stmt& body) const {
    std::vector<double> x{3, -2, 5, 7}, y(kLanes, 0);
    interp::eval_primfunc(PrimFunc{{in, out}, body}, {&x, &y});
    return y;
  }
};

Expr bcast(Expr e) { return BroadcastNode::make(std::move(e), kLanes); }

}  // namespace

TEST_CASE("swap_broadcast_cast: an int8 factor broadcast after its widening goes first, widened after the broadcast",
          "[lower][swap_broadcast_cast]") {
  Kernel k;
  Expr acc = k.v(DType::Int32);
  Expr factor = bcast(CastNode::make(DType::Int32, k.a(DType::UInt8)));
  Expr other = CastNode::make(DType::Int32, k.v(DType::Int8));
  for (const Expr& sum : {acc + factor * other, factor * other + acc}) {
    Stmt before = k.store(sum);
    Stmt after = lower::swap_broadcast_cast(before);
    INFO(to_string(after));
    // TVM rebuilds the sum as product + addend, the product's factor as Cast(Broadcast(x)).
    Expr want = CastNode::make(DType::Int32, bcast(k.a(DType::UInt8))) * other + acc;
    CHECK(to_string(after) == to_string(k.store(want)));
    CHECK(k.run(after) == k.run(before));
  }
}

TEST_CASE("swap_broadcast_cast: a bool factor widens after the broadcast too, bool being TVM's uint1",
          "[lower][swap_broadcast_cast]") {
  Kernel k;
  Expr acc = k.v(DType::Int32);
  Expr positive = k.a(DType::Float32) > Expr(0.0f);
  Stmt before = k.store(acc + bcast(CastNode::make(DType::Int32, positive)) * acc);
  Stmt after = lower::swap_broadcast_cast(before);
  Expr want = CastNode::make(DType::Int32, bcast(positive)) * acc + acc;
  CHECK(to_string(after) == to_string(k.store(want)));
  CHECK(k.run(after) == k.run(before));
}

TEST_CASE("swap_broadcast_cast: a narrowing, non-widening or unbroadcast factor leaves the sum alone",
          "[lower][swap_broadcast_cast]") {
  Kernel k;
  Expr acc = k.v(DType::Int32);
  std::vector<Expr> sums = {
      // int32 -> int8 narrows.
      CastNode::make(DType::Int32, k.v(DType::Int8) + bcast(CastNode::make(DType::Int8, k.a(DType::Int32))) * k.v(DType::Int8)),
      // A broadcast of a plain load, and a cast that is not broadcast.
      acc + bcast(k.a(DType::Int32)) * CastNode::make(DType::Int32, k.v(DType::Int8)),
      // int8 -> float32 neither doubles nor joins two integer types.
      CastNode::make(DType::Int32, k.v(DType::Float32) + bcast(CastNode::make(DType::Float32, k.a(DType::Int8))) * k.v(DType::Float32)),
      // Not a sum of a product.
      acc - bcast(CastNode::make(DType::Int32, k.a(DType::Int8))) * acc,
  };
  for (const Expr& sum : sums) {
    Stmt before = k.store(sum);
    INFO(to_string(before));
    CHECK(lower::swap_broadcast_cast(before).same_as(before));
  }
}

TEST_CASE("swap_broadcast_cast: a float sum keeps its shape, with the doubling cast after the broadcast",
          "[lower][swap_broadcast_cast]") {
  Kernel k;
  Expr acc = k.v(DType::Float64);
  Expr factor = bcast(CastNode::make(DType::Float64, k.a(DType::Float32)));
  Stmt before = k.store(acc + factor * acc);
  Stmt after = lower::swap_broadcast_cast(before);
  // The printer makes this the fma TVM makes: the addend stays where it was.
  Expr want = acc + CastNode::make(DType::Float64, bcast(k.a(DType::Float32))) * acc;
  CHECK(to_string(after) == to_string(k.store(want)));
  CHECK(k.run(after) == k.run(before));
}

TEST_CASE("swap_broadcast_cast: sums inside the rewritten ones are rewritten too", "[lower][swap_broadcast_cast]") {
  Kernel k;
  Expr acc = k.v(DType::Int32);
  Expr factor = bcast(CastNode::make(DType::Int32, k.a(DType::Int16)));
  Expr inner = acc + factor * acc;
  Stmt before = k.store(inner + factor * inner);
  Stmt after = lower::swap_broadcast_cast(before);
  Expr swapped = CastNode::make(DType::Int32, bcast(k.a(DType::Int16)));
  Expr inner_after = swapped * acc + acc;
  CHECK(to_string(after) == to_string(k.store(swapped * inner_after + inner_after)));
  CHECK(k.run(after) == k.run(before));
}
