// A search state of the tuner, as auto_scheduler's State: the transform steps so far and the
// schedule they produce, replayed after every step so that stage and iterator ids of the next
// step are those TVM would use. The helpers append one step each and compute the fields TVM
// fills in (a split's extent, the stage id after cache_write or rfactor).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/dag/compute_dag.h"
#include "common/schedule/te_schedule.h"
#include "common/schedule/transform_steps.h"

namespace mrd::tune {

class SearchState {
 public:
  /// The initial state: no steps.
  explicit SearchState(const dag::ComputeDAG& dag);
  /// Replays `steps`; UserError when one is invalid.
  SearchState(const dag::ComputeDAG& dag, std::vector<schedule::Step> steps);

  const dag::ComputeDAG& dag() const { return *dag_; }
  const std::vector<schedule::Step>& steps() const { return steps_; }
  const schedule::Schedule& schedule() const { return sch_; }
  int num_stages() const { return static_cast<int>(sch_.stages.size()); }
  const schedule::Stage& stage(int id) const { return *sch_.stages.at(id); }
  int num_iters(int stage_id) const { return static_cast<int>(stage(stage_id).leaf_iters.size()); }

  /// Appends a step and replays; UserError (state unchanged) when it is invalid.
  void add(schedule::Step s);
  /// Replaces step `index` and replays everything; UserError (state unchanged) when invalid.
  void replace(size_t index, schedule::Step s);

  /// SP with inner_to_outer = true and the iterator's extent; returns the step's index.
  int split(int stage_id, int iter_id, std::vector<int64_t> lengths);
  int follow_split(int stage_id, int iter_id, int src_step_id, int n_split);
  void reorder(int stage_id, std::vector<int> order);
  void fuse(int stage_id, std::vector<int> ids);
  void annotate(int stage_id, int iter_id, schedule::IterAnnotation a);
  void pragma(int stage_id, int iter_id, std::string pragma);
  void compute_at(int stage_id, int target_stage_id, int target_iter_id);
  void compute_inline(int stage_id);
  void compute_root(int stage_id);
  /// Returns the id of the new cache stage (the original stage moves to id + 1).
  int cache_write(int stage_id, const std::string& scope);
  /// Returns the id of the new rf stage (the original stage moves to id + 1).
  int rfactor(int stage_id, int iter_id, int factor_axis);

 private:
  const dag::ComputeDAG* dag_;
  std::vector<schedule::Step> steps_;
  schedule::Schedule sch_;
};

}  // namespace mrd::tune
