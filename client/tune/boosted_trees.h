// Gradient-boosted regression trees with squared loss: the learner behind the tuner's cost
// model, in the manner of XGBoost (second-order gain with an L2 penalty on leaf values, trees
// grown level by level over features sorted once). Small and exact: every threshold between
// two distinct values is a candidate split. Samples may carry weights (XGBoost's instance
// weights): a sample of weight w counts as w samples in every sum, so the fit is most accurate
// where the weight is.
#pragma once

#include <vector>

namespace mrd::tune {

struct BoostedTreesOptions {
  int rounds = 120;
  int max_depth = 4;
  /// Fewest samples on each side of a split.
  int min_leaf = 2;
  double learning_rate = 0.2;
  /// L2 penalty on leaf values (XGBoost's lambda).
  double l2 = 1.0;
};

class BoostedTrees {
 public:
  /// Learns y from rows of x (all rows as long as the first). Forgets an earlier fit.
  void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
           BoostedTreesOptions options = {});
  /// The same with a positive weight per sample (as many as y).
  void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
           const std::vector<double>& weights, BoostedTreesOptions options = {});
  /// The prediction for one row; the (weighted) mean of y before any fit with data.
  double predict(const std::vector<double>& row) const;
  bool trained() const { return !trees_.empty(); }

 private:
  struct Node {
    int feature = -1;  // -1: a leaf
    double threshold = 0;
    int left = -1, right = -1;
    double value = 0;
  };
  using Tree = std::vector<Node>;
  double base_ = 0;
  double rate_ = 0;
  std::vector<Tree> trees_;
};

}  // namespace mrd::tune
