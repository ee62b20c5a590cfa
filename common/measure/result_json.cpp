#include "common/measure/result_json.h"

#include <numeric>

namespace mrd::measure {

double mean_cost(const MeasureResult& r) {
  if (r.costs.empty()) return 0;
  return std::accumulate(r.costs.begin(), r.costs.end(), 0.0) / double(r.costs.size());
}

double gflops(const MeasureResult& r, double flops) {
  double cost = mean_cost(r);
  if (r.error_no != MeasureErrorNo::NoError || flops <= 0 || cost <= 0) return 0;
  return flops / cost / 1e9;
}

namespace {

void fill(nlohmann::json& j, const MeasureResult& r, double flops) {
  j["error_no"] = static_cast<int>(r.error_no);
  j["error"] = std::string(error_name(r.error_no));
  j["error_msg"] = r.error_msg;
  j["costs"] = r.costs;
  j["mean_cost"] = mean_cost(r);
  double g = gflops(r, flops);
  j["gflops"] = g > 0 ? nlohmann::json(g) : nlohmann::json(nullptr);
  j["all_cost"] = r.all_cost;
  j["build_seconds"] = r.build_seconds;
  j["run_seconds"] = r.run_seconds;
  j["cache_hit"] = r.cache_hit;
  j["timing_skipped"] = r.timing_skipped;
  j["timing_policy"] = std::string(timing_policy_name(r.policy));
  j["timestamp"] = r.timestamp;
}

}  // namespace

nlohmann::json result_json(const MeasureResult& r, double flops) {
  nlohmann::json j;
  fill(j, r, flops);
  return j;
}

nlohmann::json indexed_result_json(size_t index, const MeasureResult& r, double flops) {
  nlohmann::json j;
  j["index"] = index;
  fill(j, r, flops);
  return j;
}

}  // namespace mrd::measure
