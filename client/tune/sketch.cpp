#include "client/tune/sketch.h"

#include <thread>
#include <utility>

#include "client/tune/sketch_rules.h"
#include "common/util/error.h"

namespace mrd::tune {

int resolve_num_cores(int num_cores) {
  if (num_cores > 0) return num_cores;
  unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

std::vector<SearchState> generate_sketch_states(const dag::ComputeDAG& dag, int num_cores) {
  SketchContext ctx;
  ctx.num_cores = resolve_num_cores(num_cores);
  std::vector<std::pair<SearchState, int>> now;
  SearchState init(dag);
  now.emplace_back(init, init.num_stages() - 1);
  std::vector<SearchState> out;
  while (!now.empty()) {
    std::vector<std::pair<SearchState, int>> next;
    for (const auto& [state, stage_id] : now) {
      if (stage_id < 0) {
        out.push_back(state);
        continue;
      }
      AccessAnalysis aa(state);
      for (const SketchRule& rule : cpu_sketch_rules()) {
        RuleCondition cond = rule.condition(ctx, state, aa, stage_id);
        if (cond == RuleCondition::Skip) continue;
        RuleResult produced;
        try {
          produced = rule.apply(ctx, state, aa, stage_id);
        } catch (const UserError&) {
          continue;  // the schedule refused this rule here: as if it did not apply
        }
        for (auto& p : produced) next.push_back(std::move(p));
        if (cond == RuleCondition::ApplyAndSkipRest) break;
      }
    }
    now = std::move(next);
  }
  return out;
}

std::vector<Candidate> generate_sketches(const dag::ComputeDAG& dag, int num_cores) {
  std::vector<Candidate> out;
  for (const SearchState& s : generate_sketch_states(dag, num_cores)) out.push_back({s.steps()});
  return out;
}

}  // namespace mrd::tune
