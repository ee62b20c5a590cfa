#include "client/tune/sketch_rules.h"

#include <cctype>
#include <string>

#include "client/tune/multi_level_tiling.h"
#include "client/tune/state_queries.h"

namespace mrd::tune {

namespace {

using schedule::Stage;

bool is_compute(const SearchState& st, int stage_id) {
  return !st.stage(stage_id).is_placeholder();
}

// ---- SkipStage: always applies last; moves on to the previous stage.
RuleCondition skip_condition(const SketchContext&, const SearchState&, const AccessAnalysis&, int) {
  return RuleCondition::Apply;
}
RuleResult skip_apply(const SketchContext&, const SearchState& st, const AccessAnalysis&, int id) {
  return {{st, id - 1}};
}

// ---- AlwaysInline: strictly inlineable element-wise ops that are not outputs.
RuleCondition inline_condition(const SketchContext&, const SearchState& st,
                               const AccessAnalysis& aa, int id) {
  if (!is_compute(st, id) || aa.is_output(id) || has_reduce_iter(st.stage(id))) {
    return RuleCondition::Skip;
  }
  return aa.is_strictly_inlineable(id) ? RuleCondition::ApplyAndSkipRest : RuleCondition::Skip;
}
RuleResult inline_apply(const SketchContext&, const SearchState& st, const AccessAnalysis&,
                        int id) {
  SearchState s = st;
  s.compute_inline(id);
  return {{std::move(s), id - 1}};
}

// ---- AddRfactor: factor the (fused) reduction into a new stage, outer or inner part.
RuleCondition rfactor_condition(const SketchContext& ctx, const SearchState& st,
                                const AccessAnalysis& aa, int id) {
  return has_reduce_iter(st.stage(id)) && needs_rfactor(ctx, st, aa, id) &&
                 !has_cache_write_stage(st.steps(), id)
             ? RuleCondition::Apply
             : RuleCondition::Skip;
}
RuleResult rfactor_apply(const SketchContext&, const SearchState& st, const AccessAnalysis&,
                         int id) {
  const Stage& stage = st.stage(id);
  std::vector<int> reduce_ids;
  int n_space = 0;
  for (size_t i = 0; i < stage.leaf_iters.size(); ++i) {
    if (is_reduce_iter(*stage.leaf_iters[i])) {
      reduce_ids.push_back(static_cast<int>(i));
    } else {
      ++n_space;
    }
  }
  SearchState base = st;
  if (reduce_ids.size() > 1) base.fuse(id, reduce_ids);
  int fused = reduce_ids.front();
  base.split(id, fused, {1});
  RuleResult out;
  for (int part = 0; part < 2; ++part) {
    SearchState s = base;
    int rf = s.rfactor(id, fused + part, n_space);
    if (part == 1) {
      // Move the factored (spatial) axis innermost, for vectorization.
      std::vector<int> order;
      for (int i = 0; i < s.num_iters(rf); ++i) {
        if (i != n_space) order.push_back(i);
      }
      order.push_back(n_space);
      s.reorder(rf, order);
    }
    out.emplace_back(std::move(s), rf - 1);
  }
  return out;
}

// ---- AddCacheWrite: a tiled stage with no fusible consumer gets a "local" cache stage.
RuleCondition cache_write_condition(const SketchContext&, const SearchState& st,
                                    const AccessAnalysis& aa, int id) {
  return aa.needs_multi_level_tiling(id) && single_elementwise_matched_consumer(st, aa, id) < 0
             ? RuleCondition::Apply
             : RuleCondition::Skip;
}
RuleResult cache_write_apply(const SketchContext&, const SearchState& st, const AccessAnalysis&,
                             int id) {
  SearchState s = st;
  int cache = s.cache_write(id, "local");
  return {{std::move(s), cache}};
}

// ---- MultiLevelTilingWithFusion: tile, then let the element-wise consumer follow the outer
// levels and compute the stage at level 1 or 2 of it.
RuleCondition fusion_condition(const SketchContext&, const SearchState& st,
                               const AccessAnalysis& aa, int id) {
  if (aa.needs_multi_level_tiling(id) && single_elementwise_matched_consumer(st, aa, id) >= 0) {
    return has_cache_write_stage(st.steps(), id) ? RuleCondition::ApplyAndSkipRest
                                                 : RuleCondition::Apply;
  }
  return RuleCondition::Skip;
}
RuleResult fusion_apply(const SketchContext&, const SearchState& st, const AccessAnalysis& aa,
                        int id) {
  int target = single_elementwise_matched_consumer(st, aa, id);
  std::vector<int> spatial_splits;
  SearchState base = multi_level_tiling(st, id, kCpuTilingStructure, &spatial_splits);
  const std::string structure = kCpuTilingStructure;
  RuleResult out;
  for (int level : {1, 2}) {
    if (std::tolower(static_cast<unsigned char>(structure[level - 1])) != 's') continue;
    SearchState s = follow_tiling(base, target, spatial_splits, level);
    int target_iter = level * static_cast<int>(spatial_splits.size()) - 1;
    s.compute_at(id, target, target_iter);
    out.emplace_back(std::move(s), id - 1);
  }
  return out;
}

// ---- MultiLevelTiling.
RuleCondition tiling_condition(const SketchContext&, const SearchState&, const AccessAnalysis& aa,
                               int id) {
  return aa.needs_multi_level_tiling(id) ? RuleCondition::ApplyAndSkipRest : RuleCondition::Skip;
}
RuleResult tiling_apply(const SketchContext&, const SearchState& st, const AccessAnalysis&,
                        int id) {
  std::vector<int> spatial_splits;
  return {{multi_level_tiling(st, id, kCpuTilingStructure, &spatial_splits), id - 1}};
}

}  // namespace

bool needs_rfactor(const SketchContext& ctx, const SearchState& st, const AccessAnalysis& aa,
                   int stage_id) {
  const Stage& stage = st.stage(stage_id);
  if (stage.is_placeholder()) return false;
  std::vector<int64_t> ext = static_leaf_extents(stage);
  int64_t space = 1, reduce = 1;
  for (size_t i = 0; i < ext.size(); ++i) {
    (is_reduce_iter(*stage.leaf_iters[i]) ? reduce : space) *= ext[i];
  }
  if (aa.needs_multi_level_tiling(stage_id)) {
    return !(space > reduce || space > int64_t{ctx.num_cores} * 16);
  }
  return reduce > 1 && reduce > ctx.num_cores;
}

int single_elementwise_matched_consumer(const SearchState& st, const AccessAnalysis& aa,
                                        int stage_id) {
  std::set<int> consumers = aa.consumers(stage_id);
  if (consumers.size() != 1) return -1;
  int target = *consumers.begin();
  if (!aa.elementwise_match(stage_id, target)) return -1;
  if (has_reduce_iter(st.stage(stage_id)) && has_reduce_iter(st.stage(target))) return -1;
  return target;
}

const std::vector<SketchRule>& cpu_sketch_rules() {
  static const std::vector<SketchRule> rules = {
      {"AlwaysInline", inline_condition, inline_apply},
      {"AddRfactor", rfactor_condition, rfactor_apply},
      {"AddCacheWrite", cache_write_condition, cache_write_apply},
      {"MultiLevelTilingWithFusion", fusion_condition, fusion_apply},
      {"MultiLevelTiling", tiling_condition, tiling_apply},
      {"SkipStage", skip_condition, skip_apply},
  };
  return rules;
}

}  // namespace mrd::tune
