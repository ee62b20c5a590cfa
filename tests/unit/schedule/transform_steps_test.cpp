// Reading and writing transform steps in TVM's record syntax.
#include "common/schedule/transform_steps.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/util/error.h"

using namespace mrd::schedule;
using Catch::Contains;
using nlohmann::json;

TEST_CASE("every step kind round-trips exactly", "[schedule][json]") {
  const char* text =
      R"([["AN", 3, 0, 3], ["FU", 3, [0, 1, 2]], ["PR", 2, 0, "auto_unroll_max_step$16"],
    ["RE", 2, [0, 4, 1, 5, 8, 2, 6, 9, 3, 7]], ["SP", 2, 0, 512, [16, 2, 2], 1],
    ["SP", 2, 4, 0, [4], 0], ["FSP", 3, 0, 1, 2], ["FFSP", 3, 1, [4, 5], 1, 1], ["SA", 2, 1, 16, 4],
    ["CA", 2, 3, 3], ["CI", 1], ["CR", 4], ["CHR", 0, "shared", [2, 3]], ["CHW", 2, "local"],
    ["RF", 3, 2, 1]])";
  json in = json::parse(text);
  std::vector<Step> steps = steps_from_json(in);
  REQUIRE(steps.size() == 15);
  CHECK(steps_to_json(steps).dump() == in.dump());
  CHECK(step_name(steps[7]) == "FFSP");
  CHECK(step_stage_id(steps[9]) == 2);
  const auto& sp = std::get<SplitStep>(steps[4]);
  CHECK(sp.extent == 512);
  CHECK(sp.lengths == std::vector<int64_t>{16, 2, 2});
  CHECK(sp.inner_to_outer);
  CHECK_FALSE(std::get<SplitStep>(steps[5]).inner_to_outer);
  CHECK(std::get<CacheWriteStep>(steps[13]).scope_name == "local");
  CHECK(std::get<RfactorStep>(steps[14]).factor_iter_id == 1);
  CHECK(steps_to_json({}).dump() == "[]");
}

TEST_CASE("malformed steps are UserErrors naming the step", "[schedule][json]") {
  auto parse = [](const char* t) { return steps_from_json(json::parse(t)); };
  CHECK_THROWS_AS(parse(R"({"SP": 1})"), mrd::UserError);
  CHECK_THROWS_WITH(parse(R"([["CA", 2, 3, 3], 5])"), Contains("step 1"));
  CHECK_THROWS_WITH(parse(R"([["XX", 1]])"),
                    Contains("step 0 (XX)") && Contains("unknown step kind"));
  CHECK_THROWS_WITH(parse(R"([["CA", 2, 3]])"),
                    Contains("step 0 (CA)") && Contains("expected 3 fields"));
  CHECK_THROWS_WITH(parse(R"([["CI", 1], ["SP", 2, "0", 8, [2], 1]])"),
                    Contains("step 1 (SP)") && Contains("iter_id"));
  CHECK_THROWS_WITH(parse(R"([["SP", 2, 0, 8, [2, 0], 1]])"), Contains("positive"));
  CHECK_THROWS_WITH(parse(R"([["SP", 2, 0, 8, [2], 2]])"), Contains("inner_to_outer"));
  CHECK_THROWS_WITH(parse(R"([["SP", 2, 0, 8, 2, 1]])"), Contains("lengths"));
  CHECK_THROWS_WITH(parse(R"([["CA", -1, 3, 3]])"), Contains("negative"));
  CHECK_THROWS_WITH(parse(R"([["AN", 1, 0, 99]])"), Contains("annotation"));
  CHECK_THROWS_WITH(parse(R"([["CHW", 2, 7]])"), Contains("scope_name"));
  CHECK_THROWS_WITH(parse(R"([["FU", 2, [0, -1]]])"), Contains("fused_ids"));
  CHECK_THROWS_WITH(parse(R"([["RE", 2, [0, 1.5]]])"), Contains("after_ids"));
  CHECK_THROWS_WITH(parse(R"([["CA", 2, 3, 99999999999]])"), Contains("out of range"));
}

TEST_CASE("FSP and FFSP lengths follow their source splits", "[schedule][json]") {
  std::vector<Step> steps = steps_from_json(
      json::parse(R"([["SP", 2, 0, 128, [1, 8, 8], 1], ["SP", 2, 4, 64, [2, 4, 2], 1],
                                      ["FSP", 3, 0, 0, 2], ["FSP", 3, 0, 0, 1], ["FSP", 3, 0, 0, 4],
                                      ["FFSP", 3, 0, [0, 1], 1, 1], ["FFSP", 3, 0, [1], 3, 1]])"));
  CHECK(follow_split_lengths(std::get<FollowSplitStep>(steps[2]), steps) ==
        std::vector<int64_t>{1, 64});
  CHECK(follow_split_lengths(std::get<FollowSplitStep>(steps[3]), steps) ==
        std::vector<int64_t>{64});
  CHECK(follow_split_lengths(std::get<FollowSplitStep>(steps[4]), steps) ==
        std::vector<int64_t>{1, 8, 8, 1});
  CHECK(follow_fused_split_length(std::get<FollowFusedSplitStep>(steps[5]), steps) == 32);
  CHECK_THROWS_WITH(follow_fused_split_length(std::get<FollowFusedSplitStep>(steps[6]), steps),
                    Contains("level 3"));
  FollowSplitStep bad{3, 0, 0, 5};
  CHECK_THROWS_WITH(follow_split_lengths(bad, steps), Contains("n_split 5"));
  FollowSplitStep not_split{3, 0, 2, 1};
  CHECK_THROWS_WITH(follow_split_lengths(not_split, steps), Contains("not a split"));
}
