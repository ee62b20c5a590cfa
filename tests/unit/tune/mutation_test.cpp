#include "client/tune/mutation.h"

#include <catch2/catch.hpp>

#include "client/tune/init_population.h"
#include "client/tune/search_state.h"
#include "common/util/error.h"
#include "tests/unit/tune/tune_test_util.h"

namespace mrd::tune {
namespace {

using schedule::Step;
using testing::workload;

std::vector<SearchState> sample(const dag::ComputeDAG& dag, int n) {
  std::vector<SearchState> out;
  for (const Candidate& c : sample_initial_population(dag, n, 17, 1))
    out.emplace_back(dag, c.steps);
  return out;
}

TEST_CASE("tile size mutation moves a factor within one split and keeps its product") {
  dag::ComputeDAG dag =
      workload("matmul", {int64_t(32), int64_t(16), int64_t(24), std::string("float32")});
  Rng rng(3);
  SplitFactorization memo;
  int changed = 0;
  for (const SearchState& st : sample(dag, 8)) {
    for (int k = 0; k < 4; ++k) {
      std::optional<Steps> m = mutate_tile_size(st, rng, memo);
      if (!m) continue;
      REQUIRE(m->size() == st.steps().size());
      int diffs = 0;
      for (size_t i = 0; i < m->size(); ++i) {
        if (candidate_key({(*m)[i]}) == candidate_key({st.steps()[i]})) continue;
        ++diffs;
        const auto& a = std::get<schedule::SplitStep>(st.steps()[i]);
        const auto& b = std::get<schedule::SplitStep>((*m)[i]);
        CHECK(a.extent == b.extent);
        int64_t pa = 1, pb = 1;
        for (int64_t l : a.lengths) pa *= l;
        for (int64_t l : b.lengths) pb *= l;
        CHECK(a.extent % pb == 0);
        CHECK(b.lengths.back() <= kMaxInnermostSplitFactor);
        CHECK((pa != pb || a.lengths != b.lengths));
      }
      CHECK(diffs <= 1);
      changed += diffs;
    }
  }
  CHECK(changed > 0);
}

TEST_CASE("auto-unroll mutation changes only a pragma value") {
  dag::ComputeDAG dag =
      workload("matmul", {int64_t(16), int64_t(12), int64_t(20), std::string("float32")});
  Rng rng(5);
  for (const SearchState& st : sample(dag, 4)) {
    std::optional<Steps> m = mutate_auto_unroll(st, rng);
    REQUIRE(m);
    for (size_t i = 0; i < m->size(); ++i) {
      if (auto* pr = std::get_if<schedule::PragmaStep>(&(*m)[i])) {
        CHECK(pr->pragma_type.rfind("auto_unroll_max_step$", 0) == 0);
      } else {
        CHECK(candidate_key({(*m)[i]}) == candidate_key({st.steps()[i]}));
      }
    }
  }
}

TEST_CASE("parallel mutation changes the fuse before the parallel annotation") {
  dag::ComputeDAG dag =
      workload("matmul", {int64_t(32), int64_t(16), int64_t(32), std::string("float32")});
  Rng rng(7);
  int mutated = 0;
  for (const SearchState& st : sample(dag, 12)) {
    for (int k = 0; k < 3; ++k) {
      std::optional<Steps> m = mutate_parallel(st, rng);
      if (!m) continue;
      ++mutated;
      CHECK(candidate_key(*m) != candidate_key(st.steps()));
      CHECK_NOTHROW(SearchState(dag, *m));
      CHECK(testing::count_wrong_elements(dag, *m) == 0);
    }
  }
  CHECK(mutated > 0);
}

TEST_CASE("compute location mutation moves the padding stage of conv2d") {
  dag::ComputeDAG dag =
      workload("conv2d_nchw", {int64_t(1), int64_t(4), int64_t(8), int64_t(8), int64_t(8),
                               int64_t(3), int64_t(3), int64_t(1), int64_t(1)});
  Rng rng(11);
  int mutated = 0;
  for (const SearchState& st : sample(dag, 16)) {
    std::optional<Steps> m = mutate_compute_location(st, rng);
    if (!m) continue;
    try {
      SearchState next(dag, *m);
    } catch (const UserError&) {
      continue;  // a candidate loop that no longer exists after later steps
    }
    int diffs = 0;
    for (size_t i = 0; i < m->size(); ++i) {
      if (candidate_key({(*m)[i]}) != candidate_key({st.steps()[i]})) {
        ++diffs;
        CHECK(std::holds_alternative<schedule::ComputeAtStep>((*m)[i]));
        CHECK(std::get<schedule::ComputeAtStep>((*m)[i]).stage_id == 1);
      }
    }
    CHECK(diffs <= 1);
    ++mutated;
  }
  CHECK(mutated > 0);
}

}  // namespace
}  // namespace mrd::tune
