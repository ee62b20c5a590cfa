#include "common/measure/host_args.h"

#include <catch2/catch.hpp>

#include "common/ir/te.h"
#include "common/util/error.h"

using namespace mrd;
using namespace mrd::ir;

TEST_CASE("host args: inputs hold the interpreter's values, its copies made on demand") {
  Tensor a = placeholder({7}, "A");
  Tensor b = placeholder({5}, "B", DType::Int32);
  Tensor c = compute({7}, [&](Var i) { return a(i) * 2.0f; }, "C", {"i"});
  dag::ComputeDAG dag({a, b, c});
  measure::HostArgs args(dag);
  auto want_a = interp::make_input(*a.op(), 1);
  auto want_b = interp::make_input(*b.op(), 2);
  for (int64_t i = 0; i < 7; ++i) CHECK(args.value(0, i) == want_a.data[size_t(i)]);
  for (int64_t i = 0; i < 5; ++i) CHECK(args.value(1, i) == want_b.data[size_t(i)]);
  REQUIRE(args.inputs().size() == 2);
  CHECK(args.inputs()[0].data == want_a.data);
  CHECK(args.inputs()[1].data == want_b.data);
}

TEST_CASE("host args: a tensor beyond the interpreter's limit is an argument all the same") {
  // 2^28 + 64 int32 elements (1 GiB): within the argument limit, beyond the interpreter's.
  int64_t n = interp::kMaxInterpElements + 64;
  Tensor a = placeholder({n}, "A", DType::Int32);
  dag::ComputeDAG dag({a});
  measure::HostArgs args(dag);
  CHECK(args.elements(0) == n);
  CHECK(args.value(0, n - 1) >= 1);
  // Only a correctness check needs the interpreter's copy, and that is refused.
  CHECK_THROWS_AS(args.inputs(), UserError);
  CHECK_THROWS_WITH(args.inputs(), Catch::Contains("too large for the reference interpreter"));
}
