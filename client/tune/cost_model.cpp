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
  std::vector<double> log_cost;
  for (const auto& [steps, cost] : measured) {
    if (!(cost > 0) || !std::isfinite(cost)) continue;
    const std::vector<double>& f = features(steps);
    if (f.empty()) continue;
    x.push_back(f);
    log_cost.push_back(std::log(cost));
  }
  trees_ = BoostedTrees();
  median_throughput_ = 0.0;
  if (log_cost.empty()) return;
  // Throughput relative to the fastest: exp(min log cost - log cost), in (0, 1].
  const double best = *std::min_element(log_cost.begin(), log_cost.end());
  std::vector<double> y(log_cost.size());
  for (size_t i = 0; i < y.size(); ++i) y[i] = std::exp(best - log_cost[i]);
  std::vector<double> sorted = y;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2), sorted.end());
  median_throughput_ = sorted[sorted.size() / 2];
  if (y.size() < kMinTraining) return;
  std::vector<double> w = weight_by_throughput_ ? y : std::vector<double>(y.size(), 1.0);
  trees_.fit(x, y, w);
}

double CostModel::predict(const std::vector<schedule::Step>& steps) {
  const std::vector<double>& f = features(steps);
  if (f.empty()) return std::numeric_limits<double>::infinity();
  return -(trees_.trained() ? trees_.predict(f) : median_throughput_);
}

}  // namespace mrd::tune
