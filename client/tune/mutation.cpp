#include "client/tune/mutation.h"

#include <numeric>
#include <string>

#include "client/tune/access_analysis.h"
#include "client/tune/compute_location.h"
#include "client/tune/init_rules.h"
#include "client/tune/state_queries.h"
#include "common/util/error.h"

namespace mrd::tune {

using namespace schedule;

namespace {

bool changes_stage_count(const Step& s) {
  return std::holds_alternative<CacheWriteStep>(s) || std::holds_alternative<CacheReadStep>(s) ||
         std::holds_alternative<RfactorStep>(s);
}

/// The id, in the final state, of the stage that step `step_id` applied to (TVM's
/// GetTargetStageIDInState).
int stage_id_in_state(const Steps& steps, size_t step_id) {
  int id = step_stage_id(steps[step_id]);
  int inc = 0;
  for (size_t i = step_id + 1; i < steps.size(); ++i) {
    if (changes_stage_count(steps[i]) && step_stage_id(steps[i]) <= id + inc) ++inc;
  }
  return id + inc;
}

std::vector<size_t> random_permutation(size_t n, Rng& rng) {
  std::vector<size_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  for (size_t i = 0; i + 1 < n; ++i) std::swap(p[i], p[i + rand_index(rng, n - i)]);
  return p;
}

}  // namespace

std::optional<Steps> mutate_tile_size(const SearchState& st, Rng& rng, SplitFactorization& memo) {
  const Steps& steps = st.steps();
  std::vector<size_t> split_ids;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (auto* sp = std::get_if<SplitStep>(&steps[i])) {
      if (sp->extent > 0 && !sp->lengths.empty() &&
          sp->lengths.back() <= kMaxInnermostSplitFactor) {
        split_ids.push_back(i);
      }
    }
  }
  if (split_ids.empty()) return std::nullopt;
  const SplitStep* ps = nullptr;
  size_t step_id = 0;
  for (size_t retry = 0; retry < split_ids.size() * 4; ++retry) {
    step_id = split_ids[rand_index(rng, split_ids.size())];
    ps = &std::get<SplitStep>(steps[step_id]);
    if (ps->extent > 1) break;
  }
  if (ps->extent <= 1) return std::nullopt;

  std::vector<int64_t> lengths(ps->lengths.size() + 1, 1);
  int64_t inner = 1;
  for (size_t i = 0; i < ps->lengths.size(); ++i) {
    lengths[i + 1] = ps->lengths[i];
    inner *= ps->lengths[i];
  }
  if (inner <= 0) return std::nullopt;
  lengths[0] = ps->extent / inner;

  std::vector<size_t> perm = random_permutation(lengths.size(), rng);
  for (size_t i = 0; i < perm.size(); ++i) {
    size_t src = perm[i];
    int64_t length = lengths[src];
    if (length <= 1) continue;
    size_t dst = perm[(i + 1) % perm.size()];
    const std::vector<int64_t> factors = memo.factors(length);
    int64_t divide;
    if (dst == lengths.size() - 1) {
      // Keep the innermost factor within max_innermost_split_factor.
      size_t max_idx = factors.size() - 1;
      while (max_idx >= 1 && factors[max_idx] * lengths[dst] > kMaxInnermostSplitFactor) --max_idx;
      if (max_idx == 0) continue;
      divide = factors[1 + rand_index(rng, max_idx)];
    } else {
      divide = factors[1 + rand_index(rng, factors.size() - 1)];
    }
    SplitStep next = *ps;
    for (size_t j = 1; j < lengths.size(); ++j) {
      int64_t v = lengths[j];
      if (j == src) v /= divide;
      if (j == dst) v *= divide;
      next.lengths[j - 1] = v;
    }
    Steps out = steps;
    out[step_id] = next;
    return out;
  }
  return std::nullopt;
}

std::optional<Steps> mutate_auto_unroll(const SearchState& st, Rng& rng) {
  const Steps& steps = st.steps();
  const std::string prefix = "auto_unroll_max_step";
  std::vector<size_t> ids;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (auto* pr = std::get_if<PragmaStep>(&steps[i])) {
      if (pr->pragma_type.rfind(prefix, 0) == 0) ids.push_back(i);
    }
  }
  if (ids.empty()) return std::nullopt;
  size_t step_id = ids[rand_index(rng, ids.size())];
  PragmaStep next = std::get<PragmaStep>(steps[step_id]);
  int value = kAutoUnrollConfigs[rand_index(rng, std::size(kAutoUnrollConfigs))];
  next.pragma_type = prefix + "$" + std::to_string(value);
  Steps out = steps;
  out[step_id] = next;
  return out;
}

std::optional<Steps> mutate_compute_location(const SearchState& st, Rng& rng) {
  const Steps& steps = st.steps();
  AccessAnalysis aa(st);
  std::vector<size_t> ids;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!std::holds_alternative<ComputeAtStep>(steps[i])) continue;
    int id = stage_id_in_state(steps, i);
    if (id < 0 || id >= st.num_stages()) continue;
    if (is_tiled(st.stage(id)) || aa.needs_multi_level_tiling(id)) continue;
    ids.push_back(i);
  }
  if (ids.empty()) return std::nullopt;
  size_t step_id = ids[rand_index(rng, ids.size())];
  const auto& ca = std::get<ComputeAtStep>(steps[step_id]);
  int stage_inc = stage_id_in_state(steps, step_id) - ca.stage_id;
  std::vector<std::pair<int, int>> cands =
      compute_location_candidates(st, aa, ca.stage_id + stage_inc, KnownExtents::All);
  if (cands.empty()) return std::nullopt;
  const auto& c = cands[rand_index(rng, cands.size())];
  Steps out = steps;
  out[step_id] = ComputeAtStep{ca.stage_id, c.first - stage_inc, c.second};
  return out;
}

std::optional<Steps> mutate_parallel(const SearchState& st, Rng& rng) {
  const Steps& steps = st.steps();
  std::vector<size_t> ids;
  for (size_t s = 1; s < steps.size(); ++s) {
    auto* an = std::get_if<AnnotationStep>(&steps[s]);
    if (an == nullptr || an->annotation != static_cast<int>(IterAnnotation::Parallel)) continue;
    auto* fu = std::get_if<FuseStep>(&steps[s - 1]);
    if (an->iter_id != 0 || fu == nullptr || fu->fused_ids.empty() || fu->fused_ids[0] != 0)
      continue;
    ids.push_back(s);
  }
  if (ids.empty()) return std::nullopt;
  size_t step_id = ids[rand_index(rng, ids.size())];
  const auto& old_fuse = std::get<FuseStep>(steps[step_id - 1]);
  const int stage_id = old_fuse.stage_id;

  Steps prefix(steps.begin(), steps.begin() + (step_id - 1));
  SearchState before(st.dag(), prefix);
  const Stage& stage = before.stage(stage_id);
  int max_fusable = 0;
  for (; max_fusable < before.num_iters(stage_id); ++max_fusable) {
    if (is_reduce_iter(*stage.leaf_iters[max_fusable]) ||
        stage.annotations.count(stage.leaf_iters[max_fusable].get()) ||
        !attached_stages(before, stage_id, max_fusable).empty()) {
      break;
    }
  }
  if (max_fusable == 0) return std::nullopt;
  int fuse_to = static_cast<int>(rand_index(rng, max_fusable)) + 1;
  int iter_offset = old_fuse.fused_ids.back() - (fuse_to - 1);
  if (iter_offset == 0) return std::nullopt;

  Steps out = prefix;
  std::vector<int> fused(fuse_to);
  std::iota(fused.begin(), fused.end(), 0);
  out.push_back(FuseStep{stage_id, fused});
  out.push_back(steps[step_id]);
  for (size_t s = step_id + 1; s < steps.size(); ++s) {
    Step step = steps[s];
    if (changes_stage_count(step)) return std::nullopt;
    if (step_stage_id(step) == stage_id) {
      if (auto* an = std::get_if<AnnotationStep>(&step)) {
        if (an->iter_id != 0) an->iter_id += iter_offset;
      } else if (auto* pr = std::get_if<PragmaStep>(&step)) {
        if (pr->iter_id != 0) pr->iter_id += iter_offset;
      } else {
        return std::nullopt;
      }
    }
    out.push_back(step);
  }
  return out;
}

std::optional<SearchState> mutate(const SearchState& st, Rng& rng, SplitFactorization& memo) {
  // TVM's CPU weights: tile size 0.90, auto unroll 0.04, compute location 0.05, parallel 0.01.
  size_t r = rand_index(rng, 100);
  std::optional<Steps> steps;
  try {
    if (r < 90) {
      steps = mutate_tile_size(st, rng, memo);
    } else if (r < 94) {
      steps = mutate_auto_unroll(st, rng);
    } else if (r < 99) {
      steps = mutate_compute_location(st, rng);
    } else {
      steps = mutate_parallel(st, rng);
    }
    if (!steps) return std::nullopt;
    return SearchState(st.dag(), std::move(*steps));
  } catch (const UserError&) {
    return std::nullopt;
  }
}

}  // namespace mrd::tune
