#include "client/tune/cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "client/tune/candidate.h"
#include "client/tune/program_features.h"

namespace mrd::tune {

CostModel::CostModel(const dag::ComputeDAG& dag, bool weight_by_throughput)
    : dag_(&dag), weight_by_throughput_(weight_by_throughput) {}

const std::vector<double>& CostModel::features(const std::vector<schedule::Step>& steps) {
  std::string key = candidate_key(steps);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  if (cache_.size() >= kMaxCachedFeatures) cache_.clear();
  return cache_.emplace(std::move(key), state_features(*dag_, steps)).first->second;
}

void CostModel::fit(const std::vector<std::pair<std::vector<schedule::Step>, double>>& measured) {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (const auto& [steps, cost] : measured) {
    if (!(cost > 0) || !std::isfinite(cost)) continue;
    const std::vector<double>& f = features(steps);
    if (f.empty()) continue;
    x.push_back(f);
    y.push_back(std::log(cost));
  }
  trees_ = BoostedTrees();
  median_log_cost_ = 0.0;
  if (y.empty()) return;
  std::vector<double> sorted = y;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2), sorted.end());
  median_log_cost_ = sorted[sorted.size() / 2];
  if (y.size() < kMinTraining) return;
  // Throughput relative to the fastest: exp(min log cost - log cost), in (0, 1].
  const double best = *std::min_element(y.begin(), y.end());
  std::vector<double> w(y.size(), 1.0);
  if (weight_by_throughput_) {
    for (size_t i = 0; i < y.size(); ++i) w[i] = std::exp(best - y[i]);
  }
  trees_.fit(x, y, w);
}

double CostModel::predict(const std::vector<schedule::Step>& steps) {
  const std::vector<double>& f = features(steps);
  if (f.empty()) return std::numeric_limits<double>::infinity();
  return trees_.trained() ? trees_.predict(f) : median_log_cost_;
}

}  // namespace mrd::tune
