// The init rules against real TVM states: every compute location a TVM reference record
// chose is one of our candidates, and given the record's sketch, tile sizes and compute
// locations, our parallel, unroll and vectorization rules produce the record's remaining steps.
#include <catch2/catch.hpp>

#include "client/tune/access_analysis.h"
#include "client/tune/compute_location.h"
#include "client/tune/init_rules.h"
#include "client/tune/search_state.h"
#include "client/tune/sketch.h"
#include "tests/unit/tune/tune_test_util.h"

namespace mrd::tune {
namespace {

using schedule::Step;

std::vector<Step> placeholder_lengths(std::vector<Step> steps) {
  for (Step& s : steps) {
    if (auto* sp = std::get_if<schedule::SplitStep>(&s)) sp->lengths.assign(sp->lengths.size(), 1);
  }
  return steps;
}

/// Length of the longest sketch that the record starts with, or -1.
int sketch_length(const std::vector<Candidate>& sketches, const std::vector<Step>& record) {
  std::vector<Step> steps = placeholder_lengths(record);
  int best = -1;
  for (const Candidate& c : sketches) {
    if (c.steps.size() > steps.size()) continue;
    std::vector<Step> prefix(steps.begin(), steps.begin() + c.steps.size());
    if (candidate_key(prefix) == candidate_key(c.steps))
      best = std::max(best, static_cast<int>(c.steps.size()));
  }
  return best;
}

std::vector<Step> head(const std::vector<Step>& s, size_t n) {
  return {s.begin(), s.begin() + n};
}

bool is_location_step(const Step& s) {
  return std::holds_alternative<schedule::ComputeAtStep>(s) ||
         std::holds_alternative<schedule::ComputeRootStep>(s) ||
         std::holds_alternative<schedule::ComputeInlineStep>(s);
}

TEST_CASE("parallel, unroll and vectorization rules reproduce TVM's reference states") {
  int checked = 0;
  for (const std::string& name : testing::reference_workloads()) {
    testing::ReferenceSet ref = testing::load_reference(name);
    std::vector<Candidate> sketches = generate_sketches(ref.dag, 1);
    for (const std::vector<Step>& record : ref.states) {
      INFO(name << ": " << candidate_key(record));
      int sketch = sketch_length(sketches, record);
      REQUIRE(sketch >= 0);
      size_t p0 = static_cast<size_t>(sketch);
      // Compute locations: stages from last to first, each CA among our candidates.
      int last_stage = 1 << 30;
      for (; p0 < record.size() && is_location_step(record[p0]); ++p0) {
        int stage = schedule::step_stage_id(record[p0]);
        CHECK(stage < last_stage);
        last_stage = stage;
        SearchState at(ref.dag, head(record, p0));
        AccessAnalysis aa(at);
        CHECK_FALSE(aa.needs_multi_level_tiling(stage));
        if (auto* ca = std::get_if<schedule::ComputeAtStep>(&record[p0])) {
          auto cands = compute_location_candidates(at, aa, stage, KnownExtents::RootsOnly);
          CHECK(std::count(cands.begin(), cands.end(),
                           std::make_pair(ca->target_stage_id, ca->target_iter_id)) == 1);
        }
      }
      size_t u0 = p0;
      while (u0 < record.size() && !std::holds_alternative<schedule::PragmaStep>(record[u0])) ++u0;
      size_t v0 = u0;
      while (v0 < record.size() && std::holds_alternative<schedule::PragmaStep>(record[v0])) ++v0;

      // Parallel: deterministic.
      SearchState st(ref.dag, head(record, p0));
      REQUIRE(init_parallel(st, 1));
      CHECK(candidate_key(st.steps()) == candidate_key(head(record, u0)));

      // Unroll: the same stages get a pragma on their first loop (the values are random).
      Rng rng(1);
      REQUIRE(init_unroll(st, rng));
      std::vector<std::pair<int, int>> ours, theirs;
      for (size_t i = u0; i < st.steps().size(); ++i) {
        const auto& pr = std::get<schedule::PragmaStep>(st.steps()[i]);
        ours.emplace_back(pr.stage_id, pr.iter_id);
      }
      for (size_t i = u0; i < v0; ++i) {
        const auto& pr = std::get<schedule::PragmaStep>(record[i]);
        theirs.emplace_back(pr.stage_id, pr.iter_id);
      }
      CHECK(ours == theirs);

      // Vectorization: random only in how many inner loops it fuses; some seed matches.
      SearchState before_vec(ref.dag, head(record, v0));
      bool matched = false;
      for (uint64_t seed = 0; seed < 16 && !matched; ++seed) {
        SearchState v = before_vec;
        Rng r(seed);
        REQUIRE(init_vectorization(v, r));
        matched = candidate_key(v.steps()) == candidate_key(record);
      }
      CHECK(matched);
      ++checked;
    }
  }
  CHECK(checked == 7 * 12);
}

}  // namespace
}  // namespace mrd::tune
