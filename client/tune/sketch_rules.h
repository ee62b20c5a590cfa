// The CPU sketch-generation rules, as TVM's sketch_policy_rules.cc, in the order the CPU policy
// tries them: AlwaysInline, AddRfactor, AddCacheWrite, MultiLevelTilingWithFusion,
// MultiLevelTiling, SkipStage. Each looks at one stage of a state (working from the last stage
// to the first) and either skips it, or yields new states with the stage to look at next.
#pragma once

#include <utility>
#include <vector>

#include "client/tune/access_analysis.h"
#include "client/tune/search_state.h"

namespace mrd::tune {

enum class RuleCondition { Skip, Apply, ApplyAndSkipRest };

struct SketchContext {
  int num_cores = 1;
};

/// (new state, next stage id to look at)
using RuleResult = std::vector<std::pair<SearchState, int>>;

struct SketchRule {
  const char* name;
  RuleCondition (*condition)(const SketchContext&, const SearchState&, const AccessAnalysis&, int);
  RuleResult (*apply)(const SketchContext&, const SearchState&, const AccessAnalysis&, int);
};

/// The CPU rules, in order.
const std::vector<SketchRule>& cpu_sketch_rules();

/// TVM's NeedsRfactor: a reduction with too little spatial parallelism.
bool needs_rfactor(const SketchContext& ctx, const SearchState& st, const AccessAnalysis& aa,
                   int stage_id);
/// The single consumer of stage_id if it is element-wise matched (and not both reductions).
int single_elementwise_matched_consumer(const SearchState& st, const AccessAnalysis& aa,
                                        int stage_id);

}  // namespace mrd::tune
