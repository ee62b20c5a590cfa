#include <catch2/catch.hpp>

#include "client/tune/init_population.h"
#include "client/tune/sketch.h"
#include "tests/unit/tune/tune_test_util.h"

namespace mrd::tune {
namespace {

using testing::count_wrong_elements;
using testing::workload;

struct Case {
  std::string name;
  std::vector<registry::WorkloadArg> args;
};

TEST_CASE("every built-in workload has valid sketches and a valid sampled population") {
  const std::vector<Case> cases = {
      {"matmul_add", {int64_t(8), int64_t(6), int64_t(10), std::string("float32")}},
      {"batch_matmul", {int64_t(2), int64_t(4), int64_t(6), int64_t(8)}},
      {"dense_bias_relu", {int64_t(4), int64_t(8), int64_t(6)}},
      {"depthwise_conv2d_nchw",
       {int64_t(1), int64_t(4), int64_t(6), int64_t(6), int64_t(3), int64_t(1), int64_t(1)}},
      {"layer_norm", {int64_t(4), int64_t(20)}},
      {"max_pool2d",
       {int64_t(1), int64_t(2), int64_t(6), int64_t(6), int64_t(3), int64_t(2), int64_t(1)}},
  };
  for (const Case& c : cases) {
    dag::ComputeDAG dag = workload(c.name, c.args);
    for (int cores : {1, 4}) {
      std::vector<Candidate> sketches = generate_sketches(dag, cores);
      INFO(c.name << " with " << cores << " cores");
      CHECK(!sketches.empty());
      for (const Candidate& s : sketches) {
        INFO(candidate_key(s.steps));
        CHECK(count_wrong_elements(dag, s.steps) == 0);
      }
      std::vector<Candidate> pop = sample_initial_population(dag, 6, 2, cores);
      CHECK(!pop.empty());
      for (const Candidate& p : pop) {
        INFO(candidate_key(p.steps));
        CHECK(count_wrong_elements(dag, p.steps) == 0);
      }
    }
  }
}

}  // namespace
}  // namespace mrd::tune
