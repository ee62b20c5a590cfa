#include "client/cli/daemon_measurer.h"

#include <algorithm>

#include "client/lib/client.h"
#include "common/record/record.h"
#include "common/schedule/transform_steps.h"

namespace mrd::cli {

DaemonMeasurer::DaemonMeasurer(Common common, measure::Task task,
                               measure::MeasureOptions options, std::string log_path)
    : common_(std::move(common)),
      task_(std::move(task)),
      task_bytes_(measure::task_to_binary(task_)),
      options_(options),
      log_path_(std::move(log_path)) {}

void DaemonMeasurer::interrupt() {
  std::lock_guard<std::mutex> lock(client_mutex_);
  interrupted_ = true;
  if (client_) client_->cancel();
}

std::vector<measure::MeasureResult> DaemonMeasurer::measure(
    const std::vector<tune::Candidate>& batch) {
  return measure_with(batch, options_, true);
}

namespace {

/// One state's confirming passes as one result: the costs of every pass in order; the first
/// error when a pass failed (a state that fails now and then is not confirmed).
measure::MeasureResult merge_passes(const std::vector<const measure::MeasureResult*>& passes) {
  measure::MeasureResult out = *passes.front();
  for (size_t p = 1; p < passes.size(); ++p) {
    const measure::MeasureResult& r = *passes[p];
    if (out.error_no != measure::MeasureErrorNo::NoError) break;
    if (r.error_no != measure::MeasureErrorNo::NoError) {
      out = r;
      break;
    }
    out.costs.insert(out.costs.end(), r.costs.begin(), r.costs.end());
    out.all_cost += r.all_cost;
    out.run_seconds += r.run_seconds;
    out.build_seconds += r.build_seconds;
    out.cache_hit = out.cache_hit && r.cache_hit;
    out.timestamp = r.timestamp;
  }
  return out;
}

}  // namespace

std::vector<measure::MeasureResult> DaemonMeasurer::measure_again(
    const std::vector<tune::Candidate>& batch) {
  measure::MeasureOptions options = options_;
  options.repeat = std::max(options.repeat, 1);
  options.skip_hopeless = false;  // timed in full: it is to be trusted
  // kConfirmPasses passes over the whole batch: the repeats of one state are far apart in
  // time, so a slow spell of the machine (seconds long, here) weighs on every state a little
  // instead of on one state a lot.
  std::vector<std::vector<measure::MeasureResult>> passes;
  size_t complete = batch.size();
  for (int p = 0; p < kConfirmPasses && complete > 0; ++p) {
    passes.push_back(measure_with(batch, options, false));
    complete = std::min(complete, passes.back().size());
  }
  std::vector<measure::MeasureResult> results;
  for (size_t i = 0; i < complete; ++i) {
    std::vector<const measure::MeasureResult*> of_state;
    for (const auto& pass : passes) of_state.push_back(&pass[i]);
    results.push_back(merge_passes(of_state));
    report_result(i, results.back());
    log_result(batch[i], results.back());
  }
  return results;
}

void DaemonMeasurer::log_result(const tune::Candidate& c, const measure::MeasureResult& r) {
  if (log_path_.empty() || !log_error_.empty()) return;
  try {
    record::append_record(log_path_, record::make_record(task_, schedule::steps_to_json(c.steps).dump(), r));
  } catch (const std::exception& e) {
    log_error_ = e.what();
  }
}

std::vector<measure::MeasureResult> DaemonMeasurer::measure_with(
    const std::vector<tune::Candidate>& batch, const measure::MeasureOptions& options,
    bool deliver) {
  std::vector<measure::MeasureResult> results;
  if (!failure_.empty() || interrupted_) return results;  // stopped: send nothing more
  std::vector<std::string> states;
  states.reserve(batch.size());
  for (const auto& c : batch) states.push_back(schedule::steps_to_json(c.steps).dump());
  results.reserve(batch.size());
  bool gap = false;  // a cancelled result ended the prefix returned to the tuner
  try {
    MeasureBackend* c = nullptr;
    {
      std::lock_guard<std::mutex> lock(client_mutex_);
      if (!client_) client_ = open_backend(common_, "measurer tune");
      c = client_.get();
    }
    c->measure(task_bytes_, states, options,
               [&](uint32_t i, const measure::MeasureResult& r, const std::string&) {
      if (i >= states.size()) return;
      if (client::is_cancelled(r)) {
        gap = true;
        return;
      }
      ++measured_;
      if (!gap && i == results.size()) {
        results.push_back(r);
        if (deliver) report_result(i, r);
      }
      if (deliver) log_result(batch[i], r);
    });
  } catch (const std::exception& e) {
    failure_ = e.what();
    if (failure_.empty()) failure_ = "measurement failed";
    std::lock_guard<std::mutex> lock(client_mutex_);
    client_.reset();
  }
  return results;
}

}  // namespace mrd::cli
