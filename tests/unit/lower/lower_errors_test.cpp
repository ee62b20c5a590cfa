// Invalid schedules and programs must be UserErrors that name the step (or the tensor),
// never crashes.
#include <catch2/catch.hpp>

#include "common/ir/te.h"
#include "common/schedule/transform_steps.h"
#include "common/util/error.h"
#include "tests/unit/lower/lower_test_util.h"

using namespace mrd;
using Catch::Contains;
using lower::testing::builtin_dag;

namespace {

std::vector<schedule::Step> S(const char* text) {
  return schedule::steps_from_json(nlohmann::json::parse(text));
}

dag::ComputeDAG mm() {
  return builtin_dag("matmul_add", {int64_t(8), int64_t(4), int64_t(6), std::string("float32")});
}

}  // namespace

TEST_CASE("bad stage and iterator ids name the step", "[lower][errors]") {
  auto dag = mm();
  CHECK_THROWS_AS(lower::lower(dag, S(R"([["SP", 9, 0, 8, [2], 1]])")), mrd::UserError);
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["SP", 9, 0, 8, [2], 1]])")),
                    Contains("step 0 (SP)") && Contains("stage id 9"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["SP", 2, 0, 8, [2], 1], ["AN", 2, 7, 3]])")),
                    Contains("step 1 (AN)") && Contains("iterator id 7"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["RE", 2, [0, 1]]])")),
                    Contains("step 0 (RE)") && Contains("needs all 3"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["RE", 2, [0, 0, 1]]])")),
                    Contains("step 0 (RE)") && Contains("twice"));
}

TEST_CASE("non-consecutive fuse and bad lengths are rejected", "[lower][errors]") {
  auto dag = mm();
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["FU", 4, [0, 2]]])")), Contains("step 0 (FU)"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["FU", 4, [1, 0]]])")), Contains("consecutive"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["SP", 2, 0, 8, [], 1]])")), Contains("step 0 (SP)"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["SP", 2, 0, 8, [2], 1], ["FSP", 4, 0, 0, 5]])")),
                    Contains("step 1 (FSP)") && Contains("n_split"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["FSP", 4, 0, 0, 2]])")),
                    Contains("step 0 (FSP)") && Contains("does not come before"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["CR", 2], ["FSP", 4, 0, 0, 1]])")),
                    Contains("step 1 (FSP)") && Contains("not a split"));
}

TEST_CASE("compute_at into a stage that does not read it", "[lower][errors]") {
  // matmul_relu_relu: C (2) is read by D (3) only; E (4) reads D.
  auto dag =
      builtin_dag("matmul_relu_relu", {int64_t(4), int64_t(3), int64_t(5), std::string("float32")});
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["CA", 2, 4, 1]])")),
                    Contains("step 0 (CA)") && Contains("C") && Contains("D"));
  // Valid when the reader D is itself computed inside E.
  lower::testing::check_lowering(dag, S(R"([["CA", 3, 4, 1], ["CA", 2, 4, 1]])"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["CA", 4, 2, 0]])")), Contains("step 0 (CA)"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["CA", 0, 2, 0]])")),
                    Contains("step 0 (CA)") && Contains("placeholder"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["CA", 2, 3, 9]])")), Contains("step 0 (CA)"));
}

TEST_CASE("other invalid steps", "[lower][errors]") {
  auto dag = mm();
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["CI", 2]])")),
                    Contains("step 0 (CI)") && Contains("reduction"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["CI", 4]])")),
                    Contains("step 0 (CI)") && Contains("argument"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["CHR", 0, "shared", [2]]])")),
                    Contains("step 0 (CHR)") && Contains("not supported on CPU"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["AN", 2, 0, 6]])")), Contains("step 0 (AN)"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["PR", 2, 0, "debug_skip_region"]])")),
                    Contains("step 0 (PR)"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["RF", 2, 0, 0]])")),
                    Contains("step 0 (RF)") && Contains("data-parallel"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["RF", 4, 0, 0]])")), Contains("not a reduction"));
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["AN", 2, 0, 3], ["AN", 2, 1, 3]])")),
                    Contains("nested parallel"));
  // SA is accepted and changes nothing.
  lower::testing::check_lowering(dag, S(R"([["SA", 2, 0, 4, 1]])"));
}

TEST_CASE("seed: a read of a tensor that is not an argument names the tensor", "[lower][errors]") {
  using namespace mrd::ir;
  Tensor a = placeholder({6, 4}, "A");
  Tensor a_copy = placeholder({6, 4}, "A");  // what one-by-one serialization produced
  Tensor b = placeholder({4, 5}, "B");
  IterVar k = reduce_axis(0, 4, "k");
  Tensor e = compute({6, 5}, [&](Var i, Var j) { return sum(a_copy(i, k) * b(k, j), {k}); }, "E",
                     {"i", "j"});
  dag::ComputeDAG dag({a, b, e});
  CHECK_THROWS_AS(lower::lower(dag, {}), mrd::UserError);
  CHECK_THROWS_WITH(lower::lower(dag, {}),
                    Contains("Cannot find the Realization point of tensor A") &&
                        Contains("not a function argument"));
  // The same program with the argument's own A lowers.
  Tensor e2 =
      compute({6, 5}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "E", {"i", "j"});
  lower::testing::check_lowering(dag::ComputeDAG({a, b, e2}), {});
}

TEST_CASE("rfactor of an iterator fused with another reduction axis is rejected",
          "[lower][errors]") {
  using namespace mrd::ir;
  Tensor a = placeholder({6, 13}, "A");
  IterVar k = reduce_axis(0, 6, "k");
  IterVar l = reduce_axis(0, 13, "l");
  Tensor t = compute(
      {},
      [&](const std::vector<Var>&) {
        return max(a(k, l), {k, l});
      },
      "T");
  dag::ComputeDAG dag({a, t});
  CHECK_THROWS_WITH(
      lower::lower(dag, S(R"([["SP", 1, 0, 6, [2], 1], ["FU", 1, [1, 2]], ["RF", 1, 0, 0]])")),
      Contains("step 2 (RF)") && Contains("fused"));
  // Factoring the fused iterator itself is fine.
  lower::testing::check_lowering(
      dag, S(R"([["SP", 1, 0, 6, [2], 1], ["FU", 1, [1, 2]], ["RF", 1, 1, 0]])"));
}
