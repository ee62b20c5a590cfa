#include "common/interp/resolved_expr.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "common/interp/reference_interpreter.h"
#include "common/ir/te.h"
#include "common/util/error.h"

using namespace mrd;
using namespace mrd::ir;
using Catch::Matchers::Contains;
using interp::HostTensor;
using interp::ResolvedExpr;

namespace {

HostTensor ramp_tensor(std::vector<int64_t> shape) {
  HostTensor t{DType::Float32, shape, {}};
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  for (int64_t i = 0; i < n; ++i)
    t.data.push_back(static_cast<double>(0.1f * static_cast<float>(i + 1)));
  return t;
}

// Every point of `box` evaluated one at a time, env left where it began.
std::vector<double> one_at_a_time(const ResolvedExpr& e, std::vector<int64_t> env,
                                  const ResolvedExpr::LaneBox& box) {
  std::vector<double> out;
  std::vector<int64_t> start = env;
  for (int32_t k = 0; k < box.count; ++k) {
    int32_t rest = k;
    for (int32_t j = box.rank; j-- > 0;) {
      int64_t slot = box.axes[j].slot;
      env[static_cast<size_t>(slot)] = start[static_cast<size_t>(slot)] + rest % box.axes[j].length;
      rest /= box.axes[j].length;
    }
    out.push_back(e.eval_f(env.data()));
  }
  return out;
}

ResolvedExpr::LaneBox box_of(std::vector<std::pair<int64_t, int32_t>> axes) {
  ResolvedExpr::LaneBox box;
  for (const auto& [slot, length] : axes) {
    box.axes[box.rank++] = {slot, length};
    box.count *= length;
  }
  return box;
}

}  // namespace

TEST_CASE("lanes give what one point at a time gives, over a box of several axes", "[interp]") {
  Tensor a = placeholder({4, 5, 8}, "A");
  Tensor b = placeholder({8}, "B");
  HostTensor av = ramp_tensor({4, 5, 8}), bv = ramp_tensor({8});
  Var i("i"), j("j"), k("k");
  Expr e = exp(a(i, j + 1, 2 * k) * 0.5f - b(k + 3)) + max(a(3 - i, j, k), cast(DType::Float32, k));
  interp::TensorValues values{{a.op().get(), &av}, {b.op().get(), &bv}};
  ResolvedExpr r(e, {i.as<VarNode>(), j.as<VarNode>(), k.as<VarNode>()}, values);

  std::vector<int64_t> env{1, 0, 0};
  ResolvedExpr::LaneBox box = box_of({{1, 4}, {2, 3}});  // j in 0..3, k in 0..2
  std::vector<double> lanes(static_cast<size_t>(box.count));
  REQUIRE(r.eval_f_lanes(env.data(), box, lanes.data()));
  CHECK(lanes == one_at_a_time(r, env, box));
  CHECK(lanes[0] == r.eval_f(env.data()));
}

TEST_CASE("lanes evaluate nothing where a point would read out of bounds", "[interp]") {
  Tensor a = placeholder({8}, "A");
  HostTensor av = ramp_tensor({8});
  Var k("k");
  ResolvedExpr r(a(2 * k) + 1.0f, {k.as<VarNode>()}, {{a.op().get(), &av}});
  std::vector<int64_t> env{0};
  double out[5] = {};
  CHECK(r.eval_f_lanes(env.data(), box_of({{0, 4}}), out));  // 2k reaches 6
  CHECK(out[3] == av.data[6] + 1.0);
  CHECK_FALSE(r.eval_f_lanes(env.data(), box_of({{0, 5}}), out));  // 2k would reach 8
  env[0] = 4;
  CHECK_THROWS_WITH(r.eval_f(env.data()), Contains("A") && Contains("out of bounds"));
}

TEST_CASE("lanes leave what they do not cover to one point at a time", "[interp]") {
  Tensor a = placeholder({8}, "A");
  HostTensor av = ramp_tensor({8});
  Var k("k");
  double out[8];
  std::vector<int64_t> env{0};
  // A select guards its read; an index cast from a float is read point by point.
  ResolvedExpr guarded(select(k < 4, a(k), 0.0f), {k.as<VarNode>()}, {{a.op().get(), &av}});
  CHECK_FALSE(guarded.eval_f_lanes(env.data(), box_of({{0, 8}}), out));
  Tensor at = placeholder({8}, "At");
  HostTensor atv{DType::Float32, {8}, {7, 6, 5, 4, 3, 2, 1, 0}};
  ResolvedExpr gather(a(cast(DType::Int32, at(k))), {k.as<VarNode>()},
                      {{a.op().get(), &av}, {at.op().get(), &atv}});
  CHECK_FALSE(gather.eval_f_lanes(env.data(), box_of({{0, 2}}), out));
  env[0] = 2;
  CHECK(gather.eval_f(env.data()) == av.data[5]);
}

TEST_CASE("lanes gather at an index read from an integer tensor, each point checked", "[interp]") {
  Tensor a = placeholder({8}, "A");
  Tensor at = placeholder({8}, "At", DType::Int32);
  HostTensor av = ramp_tensor({8});
  HostTensor atv{DType::Int32, {8}, {7, 6, 5, 4, 3, 2, 1, 8}};
  Var k("k");
  ResolvedExpr gather(a(at(k)) + 1.0f, {k.as<VarNode>()},
                      {{a.op().get(), &av}, {at.op().get(), &atv}});
  std::vector<int64_t> env{0};
  double out[8];
  REQUIRE(gather.eval_f_lanes(env.data(), box_of({{0, 7}}), out));
  CHECK(out[1] == av.data[6] + 1.0);
  CHECK_FALSE(gather.eval_f_lanes(env.data(), box_of({{0, 8}}), out));  // At[7] is past A
  env[0] = 7;
  CHECK_THROWS_WITH(gather.eval_f(env.data()), Contains("A") && Contains("out of bounds"));
}

TEST_CASE("lanes read at a blocked layout's indices as one point at a time does", "[interp]") {
  // NCHWc: channel c of a blocked tensor is at [c // 8][...][c % 8]. c - 5 goes below zero,
  // where floordiv and floormod round toward negative infinity.
  Tensor a = placeholder({3, 4, 8}, "A");
  HostTensor av = ramp_tensor({3, 4, 8});
  Var c("c"), h("h");
  Expr e = a(floordiv(c + 3, 8), h, floormod(c - 5, 8)) * 2.0f +
           cast(DType::Float32, floordiv(c - 5, 3) * h);
  ResolvedExpr r(e, {c.as<VarNode>(), h.as<VarNode>()}, {{a.op().get(), &av}});
  std::vector<int64_t> env{0, 0};
  ResolvedExpr::LaneBox box = box_of({{0, 16}, {1, 4}});
  std::vector<double> lanes(static_cast<size_t>(box.count));
  REQUIRE(r.eval_f_lanes(env.data(), box, lanes.data()));
  CHECK(lanes == one_at_a_time(r, env, box));
  CHECK(lanes[13 * 4 + 2] == av.data[2 * 32 + 2 * 8 + 0] * 2.0 + 2.0 * 2.0);  // c 13, h 2

  // c + 3 reaches 24 at c 21, past the first dimension: lanes refuse it, one point reports it.
  double out[ResolvedExpr::kMaxLanes];
  CHECK(r.eval_f_lanes(env.data(), box_of({{0, 21}}), out));
  CHECK_FALSE(r.eval_f_lanes(env.data(), box_of({{0, 22}}), out));
  env[0] = 21;
  CHECK_THROWS_WITH(r.eval_f(env.data()), Contains("A") && Contains("out of bounds"));
}

TEST_CASE(
    "integer lanes wrap as each operation would and leave a division by zero to one "
    "point at a time",
    "[interp]") {
  Var i("i");
  // In int32, i * 1000000000 wraps before it is divided.
  Expr e = floordiv(i * 1000000000, 7) + floormod(i * i, 5) - max(i - 30, 0) +
           shift_left(bitwise_xor(i, 5), 3) + cast(DType::Int32, cast(DType::Int8, i * 9));
  ResolvedExpr r(e, {i.as<VarNode>()}, {});
  std::vector<int64_t> env{-20};
  ResolvedExpr::LaneBox box = box_of({{0, 64}});
  int64_t lanes[ResolvedExpr::kMaxLanes];
  REQUIRE(r.eval_i_lanes(env.data(), box, lanes));
  for (int32_t k = 0; k < box.count; ++k) {
    std::vector<int64_t> point{env[0] + k};
    CHECK(lanes[k] == r.eval_i(point.data()));
  }

  ResolvedExpr q(floordiv(100, i - 2), {i.as<VarNode>()}, {});
  env[0] = 0;
  CHECK_FALSE(q.eval_i_lanes(env.data(), box_of({{0, 4}}), lanes));  // i - 2 is 0 at i 2
  env[0] = 2;
  CHECK_THROWS_WITH(q.eval_i(env.data()), Contains("division by zero"));
  env[0] = 3;
  REQUIRE(q.eval_i_lanes(env.data(), box_of({{0, 4}}), lanes));
  CHECK(std::vector<int64_t>(lanes, lanes + 4) == std::vector<int64_t>{100, 50, 33, 25});
}

TEST_CASE("an affine index wraps as each of its operations would", "[interp]") {
  Tensor a = placeholder({8}, "A");
  HostTensor av = ramp_tensor({8});
  Var i("i");
  // In int32, i * 65536 * 65536 wraps to 0 whatever i is: the index is i + 2.
  ResolvedExpr r(a(i * 65536 * 65536 + i + 2), {i.as<VarNode>()}, {{a.op().get(), &av}});
  std::vector<double> expected;
  for (int64_t v = 0; v < 4; ++v) {
    std::vector<int64_t> env{v};
    expected.push_back(av.data[static_cast<size_t>(v + 2)]);
    CHECK(r.eval_f(env.data()) == expected.back());
  }
  std::vector<int64_t> env{0};
  double out[4];
  REQUIRE(r.eval_f_lanes(env.data(), box_of({{0, 4}}), out));
  CHECK(std::vector<double>(out, out + 4) == expected);
}

TEST_CASE("lanes refuse an int64 index whose sums would overflow", "[interp]") {
  Tensor a = placeholder({8}, "A");
  HostTensor av = ramp_tensor({8});
  Var i("i", DType::Int64);
  Expr big = IntImmNode::make(DType::Int64, std::numeric_limits<int64_t>::max());
  ResolvedExpr r(a(i + big) * 2.0f, {i.as<VarNode>()}, {{a.op().get(), &av}});
  std::vector<int64_t> env{0};
  double out[4];
  CHECK_FALSE(r.eval_f_lanes(env.data(), box_of({{0, 4}}), out));
  CHECK_THROWS_WITH(r.eval_f(env.data()), Contains("out of bounds"));
}

TEST_CASE("a variable no slot binds is an error only where it is evaluated", "[interp]") {
  Tensor a = placeholder({8}, "A");
  HostTensor av = ramp_tensor({8});
  Var i("i"), free("u");
  ResolvedExpr r(select(i < 2, a(i), cast(DType::Float32, free)), {i.as<VarNode>()},
                 {{a.op().get(), &av}});
  std::vector<int64_t> env{1};
  CHECK(r.eval_f(env.data()) == av.data[1]);
  env[0] = 3;
  CHECK_THROWS_WITH(r.eval_f(env.data()), Contains("variable u is not bound"));
}

TEST_CASE("a reduction over boxes adds in the order of its domain", "[interp]") {
  // Float32 rounding after each addition makes the sum depend on the order: the boxes (5 x 7
  // points of the last two axes, runs of the first) must keep it.
  Tensor a = placeholder({3, 11, 5, 7}, "A");
  IterVar r0 = reduce_axis(0, 11, "r0"), r1 = reduce_axis(0, 5, "r1"), r2 = reduce_axis(0, 7, "r2");
  Tensor s = compute({3},
                     [&](Var n) {
                       return sum(a(n, r0, r1, r2) * 1.1f, {r0, r1, r2});
                     },
                     "S", {"n"});
  HostTensor av = ramp_tensor({3, 11, 5, 7});
  for (double& v : av.data) v = static_cast<double>(static_cast<float>(std::sin(v * 37.0) * 1e4));
  auto out = interp::evaluate(dag::ComputeDAG({a, s}), {av});
  for (int64_t n = 0; n < 3; ++n) {
    float acc = 0;
    for (int64_t x = 0; x < 11 * 5 * 7; ++x) {
      acc =
          static_cast<float>(static_cast<double>(acc) +
                             av.data[static_cast<size_t>(n * 385 + x)] * static_cast<double>(1.1f));
    }
    CHECK(out[0].data[static_cast<size_t>(n)] == static_cast<double>(acc));
  }
}
