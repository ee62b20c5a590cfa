#include "client/cli/daemon_measurer.h"

#include <ctime>

#include "common/record/record.h"
#include "common/schedule/transform_steps.h"

namespace mrd::cli {

DaemonMeasurer::DaemonMeasurer(std::string socket_path, measure::Task task,
                               measure::MeasureOptions options, std::string log_path)
    : socket_path_(std::move(socket_path)),
      task_(std::move(task)),
      task_bytes_(measure::task_to_binary(task_)),
      options_(options),
      log_path_(std::move(log_path)) {}

std::vector<measure::MeasureResult> DaemonMeasurer::measure(
    const std::vector<tune::Candidate>& batch) {
  std::vector<std::string> states;
  states.reserve(batch.size());
  for (const auto& c : batch) states.push_back(schedule::steps_to_json(c.steps).dump());
  std::vector<measure::MeasureResult> results(batch.size());
  std::vector<bool> got(batch.size(), false);
  try {
    if (!client_) client_ = std::make_unique<client::Client>(socket_path_, "measurer tune");
    client_->measure(task_bytes_, states, options_,
                     [&](uint32_t i, const measure::MeasureResult& r) {
                       if (i >= results.size()) return;
                       results[i] = r;
                       got[i] = true;
                       ++measured_;
                       if (log_path_.empty() || !log_error_.empty()) return;
                       try {
                         record::append_record(log_path_,
                                               record::make_record(task_, states[i], r));
                       } catch (const std::exception& e) {
                         log_error_ = e.what();
                       }
                     });
  } catch (const std::exception& e) {
    failure_ = e.what();
    client_.reset();  // the next batch reconnects
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (got[i]) continue;
    results[i].error_no = measure::MeasureErrorNo::UnknownError;
    results[i].error_msg = failure_.empty() ? "no result from measurerd" : failure_;
    results[i].costs = {record::kErrorCost};
    results[i].timestamp = static_cast<double>(std::time(nullptr));
  }
  return results;
}

}  // namespace mrd::cli
