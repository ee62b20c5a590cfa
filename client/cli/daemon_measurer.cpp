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
  return measure_with(batch, options_);
}

std::vector<measure::MeasureResult> DaemonMeasurer::measure_again(
    const std::vector<tune::Candidate>& batch) {
  measure::MeasureOptions options = options_;
  options.repeat = std::max(options.repeat, kConfirmRepeat);
  options.skip_hopeless = false;  // timed in full: it is to be trusted
  return measure_with(batch, options);
}

std::vector<measure::MeasureResult> DaemonMeasurer::measure_with(
    const std::vector<tune::Candidate>& batch, const measure::MeasureOptions& options) {
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
        report_result(i, r);
      }
      if (log_path_.empty() || !log_error_.empty()) return;
      try {
        record::append_record(log_path_, record::make_record(task_, states[i], r));
      } catch (const std::exception& e) {
        log_error_ = e.what();
      }
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
