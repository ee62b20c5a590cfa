#include "client/tune/sketch.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/unit/tune/tune_test_util.h"

namespace mrd::tune {
namespace {

using schedule::Step;
using testing::count_wrong_elements;
using testing::keys_of;
using testing::workload;

bool has_step(const Candidate& c, const std::string& name) {
  for (const Step& s : c.steps) {
    if (schedule::step_name(s) == name) return true;
  }
  return false;
}

void check_all_valid(const dag::ComputeDAG& dag, const std::vector<Candidate>& sketches) {
  for (const Candidate& c : sketches) {
    INFO(candidate_key(c.steps));
    CHECK(count_wrong_elements(dag, c.steps) == 0);
    // The record form round-trips byte for byte.
    nlohmann::json j = schedule::steps_to_json(c.steps);
    CHECK(schedule::steps_to_json(schedule::steps_from_json(j)).dump() == j.dump());
  }
}

TEST_CASE("matmul sketches: plain tiling and tiling with a local cache stage at two levels") {
  dag::ComputeDAG dag =
      workload("matmul", {int64_t(16), int64_t(12), int64_t(20), std::string("float32")});
  std::vector<Candidate> sketches = generate_sketches(dag, 4);
  std::vector<std::string> keys = keys_of(sketches);
  REQUIRE(sketches.size() == 3);
  std::set<std::string> want = {
      R"([["SP",2,0,16,[1,1,1],1],["SP",2,4,20,[1,1,1],1],["SP",2,8,12,[1],1],)"
      R"(["RE",2,[0,4,1,5,8,2,6,9,3,7]]])",
      R"([["CHW",2,"local"],["SP",2,0,16,[1,1,1],1],["SP",2,4,20,[1,1,1],1],["SP",2,8,12,[1],1],)"
      R"(["RE",2,[0,4,1,5,8,2,6,9,3,7]],["FSP",3,0,1,1],["FSP",3,2,2,1],["RE",3,[0,2,1,3]],["CA",2,3,1]])",
      R"([["CHW",2,"local"],["SP",2,0,16,[1,1,1],1],["SP",2,4,20,[1,1,1],1],["SP",2,8,12,[1],1],)"
      R"(["RE",2,[0,4,1,5,8,2,6,9,3,7]],["FSP",3,0,1,2],["FSP",3,3,2,2],["RE",3,[0,3,1,4,2,5]],["CA",2,3,3]])",
  };
  CHECK(std::set<std::string>(keys.begin(), keys.end()) == want);
  check_all_valid(dag, sketches);
}

TEST_CASE("matmul_relu_relu sketches inline the first relu and fuse the second") {
  dag::ComputeDAG dag =
      workload("matmul_relu_relu", {int64_t(8), int64_t(6), int64_t(10), std::string("float32")});
  std::vector<Candidate> sketches = generate_sketches(dag, 4);
  REQUIRE(sketches.size() == 3);
  int fused = 0;
  for (const Candidate& c : sketches) {
    CHECK(schedule::step_name(c.steps.front()) == "CI");
    CHECK_FALSE(has_step(c, "CHW"));
    if (has_step(c, "FSP") && has_step(c, "CA")) ++fused;
  }
  CHECK(fused == 2);
  check_all_valid(dag, sketches);
}

TEST_CASE("conv2d_nchw sketches are valid and keep the padding stage") {
  dag::ComputeDAG dag =
      workload("conv2d_nchw", {int64_t(1), int64_t(4), int64_t(8), int64_t(8), int64_t(8),
                               int64_t(3), int64_t(3), int64_t(1), int64_t(1)});
  std::vector<Candidate> sketches = generate_sketches(dag, 4);
  REQUIRE(sketches.size() == 3);
  for (const Candidate& c : sketches) CHECK_FALSE(has_step(c, "CI"));  // pad has a branch
  check_all_valid(dag, sketches);
}

TEST_CASE("softmax sketches: rfactor of each reduction, outer or inner part") {
  dag::ComputeDAG dag = workload("softmax", {int64_t(4), int64_t(24)});
  std::vector<Candidate> sketches = generate_sketches(dag, 2);
  // Each of the two reductions: none, rfactor of the outer part, rfactor of the inner part.
  REQUIRE(sketches.size() == 9);
  int with_rf = 0;
  for (const Candidate& c : sketches) with_rf += has_step(c, "RF");
  CHECK(with_rf == 8);
  std::vector<std::string> keys = keys_of(sketches);
  CHECK(std::count(keys.begin(), keys.end(),
                   R"([["SP",3,1,24,[1],1],["RF",3,2,1],["RE",3,[0,2,1]]])") == 1);
  check_all_valid(dag, sketches);

  // With more cores than reduction steps, there is nothing to gain from rfactor.
  CHECK(generate_sketches(dag, 32).size() == 1);
}

/// The sketch part of a TVM record: its steps with split lengths replaced by placeholders of 1.
std::vector<Step> placeholder_lengths(std::vector<Step> steps) {
  for (Step& s : steps) {
    if (auto* sp = std::get_if<schedule::SplitStep>(&s)) sp->lengths.assign(sp->lengths.size(), 1);
  }
  return steps;
}

TEST_CASE("every TVM reference record starts with one of our sketches") {
  for (const std::string& name : testing::reference_workloads()) {
    testing::ReferenceSet ref = testing::load_reference(name);
    // The reference records were made with hardware num_cores = 1.
    std::vector<Candidate> sketches = generate_sketches(ref.dag, 1);
    for (const std::vector<Step>& record : ref.states) {
      std::vector<Step> steps = placeholder_lengths(record);
      bool found = false;
      for (const Candidate& c : sketches) {
        if (c.steps.size() > steps.size()) continue;
        std::vector<Step> prefix(steps.begin(), steps.begin() + c.steps.size());
        if (candidate_key(prefix) == candidate_key(c.steps)) found = true;
      }
      INFO(name << ": " << candidate_key(record));
      CHECK(found);
    }
    CHECK(ref.states.size() == 12);
  }
}

}  // namespace
}  // namespace mrd::tune
