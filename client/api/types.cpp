// The public value types and their conversions.
#include <numeric>

#include "client/api/convert.h"
#include "client/lib/client.h"

namespace measurerd {

const char* error_name(ErrorNo e) {
  return mrd::measure::error_name(static_cast<mrd::measure::MeasureErrorNo>(e)).data();
}

const char* timing_policy_name(TimingPolicy p) {
  return mrd::measure::timing_policy_name(static_cast<mrd::measure::TimingPolicy>(p)).data();
}

double mean_cost(const MeasureResult& r) {
  if (r.costs.empty()) return 0;
  return std::accumulate(r.costs.begin(), r.costs.end(), 0.0) / double(r.costs.size());
}

double gflops(const MeasureResult& r, double flops) {
  double cost = mean_cost(r);
  if (!r.ok() || flops <= 0 || cost <= 0) return 0;
  return flops / cost / 1e9;
}

bool is_cancelled(const MeasureResult& r) {
  return mrd::client::is_cancelled(to_internal(r));
}

mrd::measure::MeasureOptions to_internal(const MeasureOptions& o) {
  mrd::measure::MeasureOptions m;
  m.number = o.number;
  m.repeat = o.repeat;
  m.min_repeat_ms = o.min_repeat_ms;
  m.cooldown_interval = o.cooldown_interval;
  m.enable_cpu_cache_flush = o.enable_cpu_cache_flush;
  m.build_timeout = o.build_timeout;
  m.run_timeout = o.run_timeout;
  m.check_correctness = o.check_correctness;
  return m;
}

MeasureOptions from_internal(const mrd::measure::MeasureOptions& m) {
  MeasureOptions o;
  o.number = m.number;
  o.repeat = m.repeat;
  o.min_repeat_ms = m.min_repeat_ms;
  o.cooldown_interval = m.cooldown_interval;
  o.enable_cpu_cache_flush = m.enable_cpu_cache_flush;
  o.build_timeout = m.build_timeout;
  o.run_timeout = m.run_timeout;
  o.check_correctness = m.check_correctness;
  return o;
}

mrd::measure::MeasureResult to_internal(const MeasureResult& r) {
  mrd::measure::MeasureResult m;
  m.costs = r.costs;
  m.error_no = static_cast<mrd::measure::MeasureErrorNo>(r.error_no);
  m.error_msg = r.error_msg;
  m.all_cost = r.all_cost;
  m.timestamp = r.timestamp;
  m.build_seconds = r.build_seconds;
  m.run_seconds = r.run_seconds;
  m.cache_hit = r.cache_hit;
  m.policy = static_cast<mrd::measure::TimingPolicy>(r.policy);
  return m;
}

MeasureResult from_internal(const mrd::measure::MeasureResult& m) {
  MeasureResult r;
  r.costs = m.costs;
  r.error_no = static_cast<ErrorNo>(m.error_no);
  r.error_msg = m.error_msg;
  r.all_cost = m.all_cost;
  r.timestamp = m.timestamp;
  r.build_seconds = m.build_seconds;
  r.run_seconds = m.run_seconds;
  r.cache_hit = m.cache_hit;
  r.policy = static_cast<TimingPolicy>(m.policy);
  return r;
}

mrd::measure::HardwareParams to_internal(const HardwareParams& h) {
  return {h.num_cores, h.vector_unit_bytes, h.cache_line_bytes};
}

HardwareParams from_internal(const mrd::measure::HardwareParams& h) {
  return {h.num_cores, h.vector_unit_bytes, h.cache_line_bytes};
}

}  // namespace measurerd
