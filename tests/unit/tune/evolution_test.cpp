#include "client/tune/evolution.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "client/tune/init_population.h"
#include "client/tune/sketch.h"
#include "client/tune/validity.h"
#include "tests/unit/tune/tune_test_util.h"

namespace mrd::tune {
namespace {

using testing::workload;

TEST_CASE("without fresh samples, proposals are close mutants of the population") {
  dag::ComputeDAG dag =
      workload("matmul", {int64_t(32), int64_t(16), int64_t(32), std::string("float32")});
  std::vector<Candidate> init = sample_initial_population(dag, 1, 3, 2);
  REQUIRE(init.size() == 1);
  const std::vector<schedule::Step>& parent = init[0].steps;
  EvolutionOptions opt;
  opt.random_fraction = 0.0;
  opt.warmup_random_fraction = 0.0;
  opt.population_size = 1;  // the parent alone: no fresh samples
  opt.generations = 1;
  EvolutionarySearch search(dag, generate_sketch_states(dag, 2), 2, 1, opt);
  std::set<std::string> seen = {candidate_key(parent)};
  std::vector<SearchState> out = search.propose({{parent, 1e-3}}, 8, seen);
  REQUIRE(!out.empty());
  std::set<std::string> keys;
  for (const SearchState& s : out) {
    std::string key = candidate_key(s.steps());
    CHECK(seen.count(key) == 0);
    CHECK(keys.insert(key).second);
    CHECK(lowers(dag, s.steps()));
    // A mutant keeps the parent's structure: the same steps up to a few changed fields.
    REQUIRE(s.steps().size() >= parent.size() - 1);
    size_t same = 0;
    for (size_t i = 0; i < std::min(parent.size(), s.steps().size()); ++i) {
      same += candidate_key({parent[i]}) == candidate_key({s.steps()[i]});
    }
    CHECK(same + 3 >= parent.size());
  }
}

TEST_CASE("with nothing measured, proposals are random samples that avoid seen states") {
  dag::ComputeDAG dag =
      workload("matmul", {int64_t(16), int64_t(12), int64_t(20), std::string("float32")});
  std::vector<Candidate> init = sample_initial_population(dag, 6, 1, 2);
  std::set<std::string> seen;
  for (const Candidate& c : init) seen.insert(candidate_key(c.steps));
  EvolutionarySearch search(dag, generate_sketch_states(dag, 2), 2, 1);
  std::vector<SearchState> out = search.propose({}, 12, seen);
  CHECK(out.size() == 12);
  for (const SearchState& s : out) CHECK(seen.count(candidate_key(s.steps())) == 0);
}

TEST_CASE("the random share of a batch is larger while few states are measured") {
  EvolutionOptions opt;  // 10 %, 30 % below 128 measured states
  CHECK(random_share(64, 0, opt) == 64);    // nothing measured: all random
  CHECK(random_share(64, 64, opt) == 19);   // the model has seen one batch
  CHECK(random_share(64, 127, opt) == 19);
  CHECK(random_share(64, 128, opt) == 6);
  CHECK(random_share(8, 500, opt) == 1);    // at least one when the batch has two or more
  CHECK(random_share(1, 500, opt) == 0);
  opt.warmup_measured = 0;                  // no warm-up
  CHECK(random_share(64, 64, opt) == 6);
  opt.random_fraction = 0;
  CHECK(random_share(64, 500, opt) == 0);
}

}  // namespace
}  // namespace mrd::tune
