#include "client/tune/search_state.h"

#include <utility>

#include "client/tune/state_queries.h"
#include "common/schedule/apply_steps.h"

namespace mrd::tune {

using namespace schedule;

SearchState::SearchState(const dag::ComputeDAG& dag) : dag_(&dag), sch_(Schedule::create(dag)) {}

SearchState::SearchState(const dag::ComputeDAG& dag, std::vector<Step> steps)
    : dag_(&dag), steps_(std::move(steps)), sch_(apply_steps(dag, steps_)) {}

void SearchState::add(Step s) {
  steps_.push_back(std::move(s));
  try {
    sch_ = apply_steps(*dag_, steps_);
  } catch (...) {
    steps_.pop_back();
    throw;
  }
}

void SearchState::replace(size_t index, Step s) {
  std::vector<Step> next = steps_;
  next.at(index) = std::move(s);
  sch_ = apply_steps(*dag_, next);
  steps_ = std::move(next);
}

int SearchState::split(int stage_id, int iter_id, std::vector<int64_t> lengths) {
  int64_t extent = static_leaf_extents(stage(stage_id)).at(iter_id);
  add(SplitStep{stage_id, iter_id, extent, std::move(lengths), true});
  return static_cast<int>(steps_.size()) - 1;
}

int SearchState::follow_split(int stage_id, int iter_id, int src_step_id, int n_split) {
  add(FollowSplitStep{stage_id, iter_id, src_step_id, n_split});
  return static_cast<int>(steps_.size()) - 1;
}

void SearchState::reorder(int stage_id, std::vector<int> order) {
  add(ReorderStep{stage_id, std::move(order)});
}

void SearchState::fuse(int stage_id, std::vector<int> ids) {
  add(FuseStep{stage_id, std::move(ids)});
}

void SearchState::annotate(int stage_id, int iter_id, IterAnnotation a) {
  add(AnnotationStep{stage_id, iter_id, static_cast<int>(a)});
}

void SearchState::pragma(int stage_id, int iter_id, std::string pragma) {
  add(PragmaStep{stage_id, iter_id, std::move(pragma)});
}

void SearchState::compute_at(int stage_id, int target_stage_id, int target_iter_id) {
  add(ComputeAtStep{stage_id, target_stage_id, target_iter_id});
}

void SearchState::compute_inline(int stage_id) {
  add(ComputeInlineStep{stage_id});
}

void SearchState::compute_root(int stage_id) {
  add(ComputeRootStep{stage_id});
}

int SearchState::cache_write(int stage_id, const std::string& scope) {
  add(CacheWriteStep{stage_id, scope});
  return stage_id;
}

int SearchState::rfactor(int stage_id, int iter_id, int factor_axis) {
  add(RfactorStep{stage_id, iter_id, factor_axis});
  return stage_id;
}

}  // namespace mrd::tune
