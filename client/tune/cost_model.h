// The tuner's learned cost model, the role XGBoost plays in TVM's search: it ranks proposed
// states before any is measured, so a batch holds the states predicted fastest. States are
// compared within one structure (the same step kinds, stages and iterators, in order; tile
// sizes, the unroll pragma and the compute-at and fuse depths may differ). A state's features
// are log2 of its split lengths and unroll limit, its compute-at iterator and fused count; its
// predicted log cost is the distance-weighted mean over its nearest measured states of the
// same structure, or the median of all measured states when it has none.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "common/schedule/transform_steps.h"

namespace mrd::tune {

class CostModel {
 public:
  /// Forgets what it knew and learns from these measured states (costs in seconds, > 0).
  void fit(const std::vector<std::pair<std::vector<schedule::Step>, double>>& measured);
  /// Predicted log cost; lower is faster. Any value before fit() with data.
  double predict(const std::vector<schedule::Step>& steps) const;

  /// Neighbours averaged per prediction.
  static constexpr int kNeighbours = 3;

 private:
  struct Point {
    std::vector<double> features;
    double log_cost;
  };
  std::unordered_map<std::string, std::vector<Point>> by_structure_;
  double median_log_cost_ = 0.0;
};

}  // namespace mrd::tune
