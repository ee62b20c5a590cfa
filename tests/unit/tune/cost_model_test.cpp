// The tuner's cost model on hand-made states: neighbours of the same structure decide, other
// structures get the median.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>

#include "client/tune/cost_model.h"

using namespace mrd;

namespace {

std::vector<schedule::Step> tiled(int64_t a, int64_t b, int unroll) {
  return schedule::steps_from_json(nlohmann::json::parse(
      "[[\"SP\", 2, 0, 512, [" + std::to_string(a) + ", " + std::to_string(b) + "], 1], "
      "[\"PR\", 2, 0, \"auto_unroll_max_step$" + std::to_string(unroll) + "\"]]"));
}

}  // namespace

TEST_CASE("cost model: the nearest measured states of the same structure decide") {
  tune::CostModel m;
  m.fit({{tiled(4, 8, 16), 0.001}, {tiled(8, 8, 16), 0.0011}, {tiled(64, 4, 512), 0.010},
         {tiled(32, 8, 512), 0.011}});
  // Near the fast pair, and near the slow pair.
  CHECK(m.predict(tiled(4, 16, 16)) < m.predict(tiled(64, 8, 512)));
  CHECK(m.predict(tiled(4, 8, 16)) == Approx(std::log(0.001)).epsilon(0.2));
  // Another structure (one split length more) has no neighbours: the median.
  double median = m.predict(schedule::steps_from_json(nlohmann::json::parse(R"([["SP", 2, 0, 512, [2, 2, 2], 1]])")));
  CHECK(median > std::log(0.001));
  CHECK(median < std::log(0.011));
}

TEST_CASE("cost model: failed measurements are not learned") {
  tune::CostModel m;
  m.fit({{tiled(4, 8, 16), std::numeric_limits<double>::infinity()}, {tiled(8, 8, 16), 0.002}});
  CHECK(m.predict(tiled(4, 8, 16)) == Approx(std::log(0.002)));
}
