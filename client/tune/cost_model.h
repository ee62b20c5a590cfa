// The tuner's learned cost model, the role XGBoost plays in TVM's search: it ranks proposed
// states before any is measured, so a batch holds the states predicted fastest. A state is
// lowered and described by its program features (program_features.h: loop nests, access
// strides and footprints, annotations), which mean the same for every sketch. As TVM's
// XGBoost model does, gradient-boosted trees (boosted_trees.h) learn each measured state's
// throughput relative to the fastest one, in (0, 1], with the state weighted by that same
// throughput: the model is most accurate among the fast states, where the ranking decides
// what is measured next, and a slow state's exact cost, which a log-cost model spends its
// splits on, hardly matters. With too few measured states it predicts their median for every
// state.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "client/tune/boosted_trees.h"
#include "common/dag/compute_dag.h"
#include "common/schedule/transform_steps.h"

namespace mrd::tune {

class CostModel {
 public:
  /// `weight_by_throughput` false: every measured state counts the same.
  explicit CostModel(const dag::ComputeDAG& dag, bool weight_by_throughput = true);

  /// Forgets what it knew and learns from these measured states (costs in seconds, > 0;
  /// others are skipped).
  void fit(const std::vector<std::pair<std::vector<schedule::Step>, double>>& measured);
  /// Minus the predicted throughput relative to the fastest measured state, so that lower is
  /// faster (about -1 for a state as fast as it, and below for a faster one); +infinity for
  /// a state that does not lower.
  double predict(const std::vector<schedule::Step>& steps);

  /// Fewest measured states the trees are fitted on.
  static constexpr size_t kMinTraining = 8;
  /// Feature vectors kept between calls (measured states are described again every fit).
  static constexpr size_t kMaxCachedFeatures = 1 << 14;

 private:
  const std::vector<double>& features(const std::vector<schedule::Step>& steps);

  const dag::ComputeDAG* dag_;
  bool weight_by_throughput_;
  BoostedTrees trees_;
  double median_throughput_ = 0.0;
  std::unordered_map<std::string, std::vector<double>> cache_;
};

}  // namespace mrd::tune
