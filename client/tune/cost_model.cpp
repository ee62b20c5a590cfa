#include "client/tune/cost_model.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace mrd::tune {

namespace {

struct Encoded {
  std::string structure;
  std::vector<double> features;
};

double log2p(double v) { return std::log2(std::max(v, 1.0)); }

Encoded encode(const std::vector<schedule::Step>& steps) {
  Encoded e;
  for (const schedule::Step& step : steps) {
    std::visit(
        [&](const auto& s) {
          using T = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<T, schedule::SplitStep>) {
            e.structure += "SP" + std::to_string(s.stage_id) + "," + std::to_string(s.iter_id) + "," +
                           std::to_string(s.lengths.size()) + ";";
            for (int64_t l : s.lengths) e.features.push_back(log2p(static_cast<double>(l)));
          } else if constexpr (std::is_same_v<T, schedule::PragmaStep>) {
            e.structure += "PR" + std::to_string(s.stage_id) + ";";
            size_t dollar = s.pragma_type.find('$');
            double n = dollar == std::string::npos ? 0 : std::atof(s.pragma_type.c_str() + dollar + 1);
            e.features.push_back(log2p(1 + n));
          } else if constexpr (std::is_same_v<T, schedule::ComputeAtStep>) {
            e.structure += "CA" + std::to_string(s.stage_id) + "," + std::to_string(s.target_stage_id) + ";";
            e.features.push_back(s.target_iter_id);
          } else if constexpr (std::is_same_v<T, schedule::FuseStep>) {
            e.structure += "FU" + std::to_string(s.stage_id) + ";";
            e.features.push_back(static_cast<double>(s.fused_ids.size()));
          } else if constexpr (std::is_same_v<T, schedule::FollowSplitStep>) {
            e.structure += "FSP" + std::to_string(s.stage_id) + "," + std::to_string(s.src_step_id) + ";";
            e.features.push_back(s.n_split);
          } else if constexpr (std::is_same_v<T, schedule::ReorderStep>) {
            e.structure += "RE" + std::to_string(s.stage_id) + ";";  // follows the FSP/CA depths
          } else {
            e.structure += schedule::steps_to_json({s}).dump() + ";";
          }
        },
        step);
  }
  return e;
}

}  // namespace

void CostModel::fit(const std::vector<std::pair<std::vector<schedule::Step>, double>>& measured) {
  by_structure_.clear();
  std::vector<double> logs;
  for (const auto& [steps, cost] : measured) {
    if (!(cost > 0) || !std::isfinite(cost)) continue;
    Encoded e = encode(steps);
    double lc = std::log(cost);
    by_structure_[e.structure].push_back({std::move(e.features), lc});
    logs.push_back(lc);
  }
  if (logs.empty()) {
    median_log_cost_ = 0.0;
    return;
  }
  std::nth_element(logs.begin(), logs.begin() + logs.size() / 2, logs.end());
  median_log_cost_ = logs[logs.size() / 2];
}

double CostModel::predict(const std::vector<schedule::Step>& steps) const {
  Encoded e = encode(steps);
  auto it = by_structure_.find(e.structure);
  if (it == by_structure_.end()) return median_log_cost_;
  std::vector<std::pair<double, double>> dist;  // (distance, log cost)
  for (const Point& p : it->second) {
    if (p.features.size() != e.features.size()) continue;
    double d = 0;
    for (size_t i = 0; i < p.features.size(); ++i) d += (p.features[i] - e.features[i]) * (p.features[i] - e.features[i]);
    dist.emplace_back(std::sqrt(d), p.log_cost);
  }
  if (dist.empty()) return median_log_cost_;
  size_t k = std::min<size_t>(kNeighbours, dist.size());
  std::partial_sort(dist.begin(), dist.begin() + k, dist.end());
  double wsum = 0, sum = 0;
  for (size_t i = 0; i < k; ++i) {
    double w = 1.0 / (dist[i].first + 0.25);
    wsum += w;
    sum += w * dist[i].second;
  }
  return sum / wsum;
}

}  // namespace mrd::tune
