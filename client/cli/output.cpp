#include "client/cli/output.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <numeric>

namespace mrd::cli {

double mean_cost(const measure::MeasureResult& r) {
  if (r.costs.empty()) return 0;
  return std::accumulate(r.costs.begin(), r.costs.end(), 0.0) / r.costs.size();
}

double gflops(const measure::MeasureResult& r, double flops) {
  double cost = mean_cost(r);
  if (r.error_no != measure::MeasureErrorNo::NoError || flops <= 0 || cost <= 0) return 0;
  return flops / cost / 1e9;
}

nlohmann::json result_json(uint32_t index, const measure::MeasureResult& r,
                           std::optional<double> flops) {
  nlohmann::json j;
  j["index"] = index;
  j["error_no"] = static_cast<int>(r.error_no);
  j["error"] = std::string(measure::error_name(r.error_no));
  j["error_msg"] = r.error_msg;
  j["costs"] = r.costs;
  j["mean_cost"] = mean_cost(r);
  if (flops) {
    double g = gflops(r, *flops);
    j["gflops"] = g > 0 ? nlohmann::json(g) : nlohmann::json(nullptr);
  }
  j["all_cost"] = r.all_cost;
  j["build_seconds"] = r.build_seconds;
  j["run_seconds"] = r.run_seconds;
  j["cache_hit"] = r.cache_hit;
  j["timing_skipped"] = r.timing_skipped;
  j["timing_policy"] = std::string(measure::timing_policy_name(r.policy));
  j["timestamp"] = r.timestamp;
  return j;
}

std::string table_header() {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%5s  %-19s  %12s  %9s  %8s  %8s  %5s  %s", "#", "result",
                "mean cost ms", "GFLOP/s", "build s", "run s", "cache", "message");
  return buf;
}

std::string table_row(uint32_t index, const measure::MeasureResult& r, double flops) {
  std::string msg = r.error_msg.substr(0, r.error_msg.find('\n'));
  if (msg.size() > 60) msg = msg.substr(0, 57) + "...";
  char cost[32] = "-";
  if (r.error_no == measure::MeasureErrorNo::NoError)
    std::snprintf(cost, sizeof cost, "%.4f", mean_cost(r) * 1e3);
  char rate[32] = "-";
  if (double g = gflops(r, flops); g > 0) std::snprintf(rate, sizeof rate, "%.2f", g);
  char buf[256];
  std::snprintf(buf, sizeof buf, "%5u  %-19s  %12s  %9s  %8.3f  %8.3f  %5s  %s", index,
                std::string(measure::error_name(r.error_no)).c_str(), cost, rate, r.build_seconds,
                r.run_seconds, r.cache_hit ? "hit" : "", msg.c_str());
  return buf;
}

Progress::Progress(size_t total, bool enabled)
    : total_(total), enabled_(enabled && ::isatty(STDERR_FILENO)) {}

void Progress::update(size_t done, size_t errors) {
  if (!enabled_ || total_ == 0) return;
  constexpr int kWidth = 30;
  int filled = static_cast<int>(kWidth * done / total_);
  std::cerr << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, ' ') << "] "
            << done << "/" << total_;
  if (errors) std::cerr << "  errors " << errors;
  std::cerr << std::flush;
  drawn_ = true;
}

void Progress::clear() {
  if (drawn_) std::cerr << "\r\033[K" << std::flush;
  drawn_ = false;
}

void Progress::finish() {
  if (drawn_) std::cerr << "\n";
  drawn_ = false;
}

}  // namespace mrd::cli
