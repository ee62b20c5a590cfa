#include "client/tune/boosted_trees.h"

#include <algorithm>
#include <numeric>

namespace mrd::tune {

namespace {

struct Split {
  double gain = 0;
  int feature = -1;
  double threshold = 0;
};

double score(double sum, double count, double l2) { return sum * sum / (count + l2); }

}  // namespace

void BoostedTrees::fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                       BoostedTreesOptions options) {
  fit(x, y, std::vector<double>(std::min(x.size(), y.size()), 1.0), options);
}

void BoostedTrees::fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                       const std::vector<double>& w, BoostedTreesOptions options) {
  trees_.clear();
  rate_ = options.learning_rate;
  base_ = 0;
  const size_t n = std::min({x.size(), y.size(), w.size()});
  if (n == 0) return;
  double total_weight = 0;
  for (size_t i = 0; i < n; ++i) {
    base_ += w[i] * y[i];
    total_weight += w[i];
  }
  if (!(total_weight > 0)) return;
  base_ /= total_weight;
  const size_t features = x[0].size();
  // Sample indices sorted by each feature, once.
  std::vector<std::vector<int>> sorted(features);
  for (size_t f = 0; f < features; ++f) {
    sorted[f].resize(n);
    std::iota(sorted[f].begin(), sorted[f].end(), 0);
    std::stable_sort(sorted[f].begin(), sorted[f].end(),
                     [&](int a, int b) { return x[a][f] < x[b][f]; });
  }
  std::vector<double> residual(n);
  std::vector<double> prediction(n, base_);
  std::vector<int> node_of(n);
  for (int round = 0; round < options.rounds; ++round) {
    for (size_t i = 0; i < n; ++i) residual[i] = y[i] - prediction[i];
    Tree tree(1);
    std::fill(node_of.begin(), node_of.end(), 0);
    std::vector<int> frontier{0};
    for (int depth = 0; depth < options.max_depth && !frontier.empty(); ++depth) {
      // Totals per frontier node.
      std::vector<int> slot(tree.size(), -1);
      for (size_t k = 0; k < frontier.size(); ++k) slot[frontier[k]] = static_cast<int>(k);
      std::vector<double> sum(frontier.size(), 0), weight(frontier.size(), 0),
          count(frontier.size(), 0);
      for (size_t i = 0; i < n; ++i) {
        int k = node_of[i] >= 0 ? slot[node_of[i]] : -1;
        if (k < 0) continue;
        sum[k] += w[i] * residual[i];
        weight[k] += w[i];
        count[k] += 1;
      }
      std::vector<Split> best(frontier.size());
      std::vector<double> left_sum(frontier.size()), left_weight(frontier.size()),
          left_count(frontier.size());
      std::vector<double> last_value(frontier.size());
      for (size_t f = 0; f < features; ++f) {
        std::fill(left_sum.begin(), left_sum.end(), 0);
        std::fill(left_weight.begin(), left_weight.end(), 0);
        std::fill(left_count.begin(), left_count.end(), 0);
        for (int i : sorted[f]) {
          int k = node_of[i] >= 0 ? slot[node_of[i]] : -1;
          if (k < 0) continue;
          double v = x[i][f];
          // A threshold between the previous value and this one splits here.
          if (left_count[k] >= options.min_leaf && count[k] - left_count[k] >= options.min_leaf &&
              v > last_value[k]) {
            double gain = score(left_sum[k], left_weight[k], options.l2) +
                          score(sum[k] - left_sum[k], weight[k] - left_weight[k], options.l2) -
                          score(sum[k], weight[k], options.l2);
            if (gain > best[k].gain + 1e-12) best[k] = {gain, static_cast<int>(f), (last_value[k] + v) / 2};
          }
          left_sum[k] += w[i] * residual[i];
          left_weight[k] += w[i];
          left_count[k] += 1;
          last_value[k] = v;
        }
      }
      std::vector<int> next;
      for (size_t k = 0; k < frontier.size(); ++k) {
        Node& node = tree[frontier[k]];
        node.value = sum[k] / (weight[k] + options.l2);
        if (best[k].feature < 0) continue;
        node.feature = best[k].feature;
        node.threshold = best[k].threshold;
        node.left = static_cast<int>(tree.size());
        node.right = node.left + 1;
        tree.emplace_back();
        tree.emplace_back();
        next.push_back(node.left);
        next.push_back(node.right);
      }
      for (size_t i = 0; i < n; ++i) {
        int at = node_of[i];
        if (at < 0 || tree[at].feature < 0) continue;
        node_of[i] = x[i][tree[at].feature] < tree[at].threshold ? tree[at].left : tree[at].right;
      }
      frontier = std::move(next);
    }
    // The last level's leaves.
    if (!frontier.empty()) {
      std::vector<double> sum(tree.size(), 0), weight(tree.size(), 0);
      for (size_t i = 0; i < n; ++i) {
        sum[node_of[i]] += w[i] * residual[i];
        weight[node_of[i]] += w[i];
      }
      for (int leaf : frontier) tree[leaf].value = sum[leaf] / (weight[leaf] + options.l2);
    }
    for (size_t i = 0; i < n; ++i) {
      int at = 0;
      while (tree[at].feature >= 0) at = x[i][tree[at].feature] < tree[at].threshold ? tree[at].left : tree[at].right;
      prediction[i] += rate_ * tree[at].value;
    }
    trees_.push_back(std::move(tree));
  }
}

double BoostedTrees::predict(const std::vector<double>& row) const {
  double p = base_;
  for (const Tree& tree : trees_) {
    int at = 0;
    while (tree[at].feature >= 0) {
      double v = static_cast<size_t>(tree[at].feature) < row.size() ? row[tree[at].feature] : 0.0;
      at = v < tree[at].threshold ? tree[at].left : tree[at].right;
    }
    p += rate_ * tree[at].value;
  }
  return p;
}

}  // namespace mrd::tune
