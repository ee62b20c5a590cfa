#include "client/tune/init_population.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "client/tune/init_rules.h"
#include "client/tune/sketch.h"
#include "tests/unit/tune/tune_test_util.h"

namespace mrd::tune {
namespace {

using schedule::Step;
using testing::count_wrong_elements;
using testing::keys_of;
using testing::workload;

void check_population(const dag::ComputeDAG& dag, int n, int cores) {
  std::vector<Candidate> pop = sample_initial_population(dag, n, 5, cores);
  CHECK(static_cast<int>(pop.size()) == n);
  std::vector<std::string> keys = keys_of(pop);
  CHECK(std::set<std::string>(keys.begin(), keys.end()).size() == pop.size());
  for (const Candidate& c : pop) {
    INFO(candidate_key(c.steps));
    CHECK(count_wrong_elements(dag, c.steps) == 0);
    // Every split got lengths that divide its extent.
    for (const Step& s : c.steps) {
      if (auto* sp = std::get_if<schedule::SplitStep>(&s)) {
        int64_t prod = 1;
        for (int64_t l : sp->lengths) prod *= l;
        CHECK(sp->extent % prod == 0);
        CHECK(sp->lengths.back() <= kMaxInnermostSplitFactor);
      }
    }
  }
}

TEST_CASE("initial populations are valid, distinct and compute the right values") {
  check_population(
      workload("matmul", {int64_t(16), int64_t(12), int64_t(20), std::string("float32")}), 12, 2);
  check_population(
      workload("conv2d_nchw", {int64_t(1), int64_t(4), int64_t(8), int64_t(8), int64_t(8),
                               int64_t(3), int64_t(3), int64_t(1), int64_t(1)}),
      8, 2);
  check_population(workload("softmax", {int64_t(4), int64_t(24)}), 8, 2);
  check_population(
      workload("matmul_relu_relu", {int64_t(8), int64_t(6), int64_t(10), std::string("float32")}),
      8, 1);
}

TEST_CASE("sampling is deterministic for a seed") {
  dag::ComputeDAG dag =
      workload("matmul", {int64_t(32), int64_t(16), int64_t(24), std::string("float32")});
  std::vector<std::string> a = keys_of(sample_initial_population(dag, 10, 42, 2));
  std::vector<std::string> b = keys_of(sample_initial_population(dag, 10, 42, 2));
  std::vector<std::string> c = keys_of(sample_initial_population(dag, 10, 43, 2));
  CHECK(a == b);
  CHECK(a != c);
}

bool has_pragma(const Candidate& c, int stage) {
  for (const Step& s : c.steps) {
    if (auto* pr = std::get_if<schedule::PragmaStep>(&s)) {
      if (pr->stage_id == stage && pr->iter_id == 0 &&
          pr->pragma_type.rfind("auto_unroll_max_step$", 0) == 0) {
        return true;
      }
    }
  }
  return false;
}

TEST_CASE("sampled matmul states are parallel, unrolled and vectorized as TVM's init rules") {
  dag::ComputeDAG dag =
      workload("matmul", {int64_t(64), int64_t(32), int64_t(64), std::string("float32")});
  std::vector<Candidate> pop = sample_initial_population(dag, 16, 9, 1);
  REQUIRE(pop.size() == 16);
  int vectorized = 0;
  for (const Candidate& c : pop) {
    bool parallel = false;
    bool reduction_stage_unrolled = false;
    for (const Step& s : c.steps) {
      if (auto* an = std::get_if<schedule::AnnotationStep>(&s)) {
        if (an->annotation == static_cast<int>(schedule::IterAnnotation::Parallel)) parallel = true;
        if (an->annotation == static_cast<int>(schedule::IterAnnotation::Vectorize)) ++vectorized;
      }
    }
    // The matmul stage is 2 in the plain sketch, 2 (the cache stage) with CHW as well.
    reduction_stage_unrolled = has_pragma(c, 2);
    INFO(candidate_key(c.steps));
    CHECK(parallel);
    CHECK(reduction_stage_unrolled);
  }
  CHECK(vectorized > 0);
}

}  // namespace
}  // namespace mrd::tune
