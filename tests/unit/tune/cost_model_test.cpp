// The tuner's cost model on real lowered states of a small matmul: it learns a cost that
// depends on what the programs do, and ranks states it has not seen by it.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "client/tune/cost_model.h"
#include "client/tune/init_population.h"
#include "client/tune/program_features.h"
#include "tests/unit/tune/tune_test_util.h"

using namespace mrd;

namespace {

/// A made-up cost: states whose main store runs more iterations of its innermost loop
/// contiguously (wider vector, longer inner loop) are faster.
double made_up_cost(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps) {
  std::vector<double> f = tune::state_features(dag, steps);
  REQUIRE(!f.empty());
  const double lanes = f[3 + 1];           // the main store's log2 vector lanes
  const double innermost = f[3 + 12];      // log2 extent of its innermost loop
  return 1e-3 * std::exp2(-(lanes + 0.5 * innermost));
}

}  // namespace

TEST_CASE("cost model: ranks unseen states by what it learned from measured ones") {
  dag::ComputeDAG dag =
      tune::testing::workload("matmul", {int64_t(64), int64_t(64), int64_t(64), std::string("float32")});
  std::vector<tune::Candidate> states = tune::sample_initial_population(dag, 96, 5, 1);
  REQUIRE(states.size() >= 64);
  tune::CostModel model(dag);
  std::vector<std::pair<std::vector<schedule::Step>, double>> measured;
  for (size_t i = 0; i < 48; ++i) measured.emplace_back(states[i].steps, made_up_cost(dag, states[i].steps));
  model.fit(measured);
  double fastest = measured[0].second;
  for (const auto& m : measured) fastest = std::min(fastest, m.second);
  // Concordant pairs among the states it has not seen, where the made-up costs differ by 2x+
  // and the faster one is within 4x of the fastest measured state: where the ranking decides
  // what is measured next (the model learns throughput, and all slow states have about none).
  int pairs = 0, concordant = 0;
  for (size_t i = 48; i < states.size(); ++i) {
    for (size_t j = i + 1; j < states.size(); ++j) {
      double ci = made_up_cost(dag, states[i].steps), cj = made_up_cost(dag, states[j].steps);
      if (std::max(ci, cj) < 2 * std::min(ci, cj) || std::min(ci, cj) > 4 * fastest) continue;
      ++pairs;
      concordant += (ci < cj) == (model.predict(states[i].steps) < model.predict(states[j].steps));
    }
  }
  REQUIRE(pairs > 20);
  CHECK(concordant >= 0.9 * pairs);
}

TEST_CASE("cost model: few measurements give their median throughput, a state that does not lower, infinity") {
  dag::ComputeDAG dag =
      tune::testing::workload("matmul", {int64_t(16), int64_t(16), int64_t(16), std::string("float32")});
  std::vector<tune::Candidate> states = tune::sample_initial_population(dag, 4, 1, 1);
  REQUIRE(states.size() == 4);
  tune::CostModel model(dag);
  model.fit({{states[0].steps, 0.001}, {states[1].steps, 0.002}, {states[2].steps, 0.004},
             {states[3].steps, std::numeric_limits<double>::infinity()}});  // failed: not learned
  // Relative throughputs 1, 1/2 and 1/4: the score is minus the median.
  CHECK(model.predict(states[0].steps) == Approx(-0.5));
  CHECK(model.predict(states[3].steps) == Approx(-0.5));
  auto bad = schedule::steps_from_json(nlohmann::json::parse(R"([["SP", 9, 0, 16, [4], 1]])"));
  CHECK(std::isinf(model.predict(bad)));
}

TEST_CASE("cost model: measured states count by their throughput relative to the fastest") {
  dag::ComputeDAG dag =
      tune::testing::workload("matmul", {int64_t(16), int64_t(16), int64_t(16), std::string("float32")});
  std::vector<tune::Candidate> states = tune::sample_initial_population(dag, 1, 1, 1);
  REQUIRE(states.size() == 1);
  // One state measured 8 times, half at 1 ms and half at 4 ms: the features cannot tell the
  // measurements apart, so the model predicts their (weighted) mean relative throughput.
  std::vector<std::pair<std::vector<schedule::Step>, double>> measured;
  for (int i = 0; i < 4; ++i) {
    measured.emplace_back(states[0].steps, 1e-3);
    measured.emplace_back(states[0].steps, 4e-3);
  }
  tune::CostModel weighted(dag);
  weighted.fit(measured);
  // Throughputs 1 and 1/4, weighted by themselves: the mean leans to the fast measurement.
  CHECK(weighted.predict(states[0].steps) == Approx(-(1.0 * 1.0 + 0.25 * 0.25) / (1.0 + 0.25)));
  tune::CostModel even(dag, false);
  even.fit(measured);
  CHECK(even.predict(states[0].steps) == Approx(-(1.0 + 0.25) / 2));
}
