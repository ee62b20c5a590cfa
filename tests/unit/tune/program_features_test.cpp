// Program features of a hand-scheduled matmul: the numbers describe its loop nest.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "client/tune/init_population.h"
#include "client/tune/program_features.h"
#include "tests/unit/tune/tune_test_util.h"

using namespace mrd;

namespace {

// Offsets into the vector: 3 program-wide features, then the most executed store's.
constexpr int kStore = 3;
constexpr int kLevel0 = kStore + 12;
constexpr int kLevel1 = kLevel0 + tune::kFeaturesPerLevel;

}  // namespace

TEST_CASE("program features: a vectorized matmul's main store") {
  dag::ComputeDAG dag =
      tune::testing::workload("matmul", {int64_t(64), int64_t(64), int64_t(64), std::string("float32")});
  // C[i, j] over i, j.0, k, j.1 with j.1 (16) vectorized.
  auto steps = schedule::steps_from_json(nlohmann::json::parse(
      R"([["SP", 2, 1, 64, [16], 1], ["RE", 2, [0, 1, 3, 2]], ["AN", 2, 3, 2]])"));
  std::vector<double> f = tune::state_features(dag, steps);
  REQUIRE(f.size() == static_cast<size_t>(tune::kProgramFeatures));
  CHECK(f[kStore + 0] == Approx(18.0));  // 64 * 4 * 64 * 16 executions
  CHECK(f[kStore + 1] == Approx(4.0));   // 16 lanes
  CHECK(f[kStore + 6] == 1.0);           // a reduction
  CHECK(f[kStore + 8] == 1.0);           // A[i, k] is the same for every lane
  CHECK(f[kStore + 9] == 3.0);           // C read, B read and C written move by one
  CHECK(f[kLevel0 + 0] == Approx(4.0));  // innermost: extent 16, vectorized, spatial
  CHECK(f[kLevel0 + 1] == static_cast<double>(ir::ForKind::Vectorized));
  CHECK(f[kLevel0 + 2] == 0.0);
  CHECK(f[kLevel1 + 0] == Approx(6.0));  // then k: extent 64, serial, a reduction loop
  CHECK(f[kLevel1 + 1] == static_cast<double>(ir::ForKind::Serial));
  CHECK(f[kLevel1 + 2] == 1.0);
  // Inside k: C and its update touch 16 floats each, A 64, B 64 x 16.
  CHECK(f[kLevel1 + 3] == Approx(std::log2((16 + 16 + 64 + 64 * 16) * 4.0)));
  // Cache lines of 16 floats: C and its update 1 each, A's 64 consecutive floats 4, and B one
  // line (its 16 lanes) for each of the 64 rows.
  CHECK(f[kLevel1 + 4] == Approx(std::log2(1 + 1 + 4 + 64)));
  // 16 x 64 iterations of 3 loads over the bytes touched.
  CHECK(f[kLevel1 + 5] == Approx(std::log2(16 * 64 * 3 / ((16 + 16 + 64 + 64 * 16) * 4.0))));
  // Each access's bytes: the store, then the loads as the update reads them: C, A, B.
  CHECK(f[kLevel1 + 6] == Approx(std::log2(16 * 4)));
  CHECK(f[kLevel1 + 7] == Approx(std::log2(16 * 4)));
  CHECK(f[kLevel1 + 8] == Approx(std::log2(64 * 4)));
  CHECK(f[kLevel1 + 9] == Approx(std::log2(64 * 16 * 4)));
}

TEST_CASE("program features: one length for every state, none for a state that does not lower") {
  dag::ComputeDAG dag =
      tune::testing::workload("matmul", {int64_t(32), int64_t(16), int64_t(32), std::string("float32")});
  for (const tune::Candidate& c : tune::sample_initial_population(dag, 16, 2, 2)) {
    CHECK(tune::state_features(dag, c.steps).size() == static_cast<size_t>(tune::kProgramFeatures));
  }
  auto bad = schedule::steps_from_json(nlohmann::json::parse(R"([["SP", 9, 0, 16, [4], 1]])"));
  CHECK(tune::state_features(dag, bad).empty());
}
