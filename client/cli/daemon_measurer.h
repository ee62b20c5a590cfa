// The tuner's Measurer over measurerd: each batch goes to the daemon as one request; every
// result is appended to the record log as it arrives. A broken connection or a refused request
// becomes error results (never an exception), and the next batch reconnects.
#pragma once

#include <memory>
#include <string>

#include "client/lib/client.h"
#include "client/tune/tuner.h"
#include "common/measure/task.h"

namespace mrd::cli {

class DaemonMeasurer : public tune::Measurer {
 public:
  /// `task` is what the records name (its hardware num_cores should be the tuner's);
  /// `log_path` empty: no log. `on_result` (optional) sees each result as it arrives.
  DaemonMeasurer(std::string socket_path, measure::Task task, measure::MeasureOptions options,
                 std::string log_path);

  std::vector<measure::MeasureResult> measure(const std::vector<tune::Candidate>& batch) override;

  /// The last transport or daemon failure, empty when none happened.
  const std::string& failure() const { return failure_; }
  /// A log write failure (the log stops at the first one), empty when none.
  const std::string& log_error() const { return log_error_; }
  /// Measurements made (error results of failed requests not counted).
  size_t measured() const { return measured_; }

 private:
  std::string socket_path_;
  measure::Task task_;
  std::string task_bytes_;
  measure::MeasureOptions options_;
  std::string log_path_;
  std::unique_ptr<client::Client> client_;
  std::string failure_;
  std::string log_error_;
  size_t measured_ = 0;
};

}  // namespace mrd::cli
