// The tuner's Measurer over measurerd (or a broker's nodes, with --broker): each batch goes to the daemon as one request; every
// result is appended to the record log as it arrives. When the daemon goes away, the connection
// breaks or a request is refused, measure() returns only the results received (a prefix of the
// batch, never invented error results), failure() says why, and the tuner stops: nothing more
// is sent. interrupt() (Ctrl-C) cancels the request in flight the same way: the results that
// still arrive measured are logged, the cancelled ones are not, and the tuner stops. The
// tuner's confirming batch (measure_again) is measured in several passes, its repeats far apart.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "client/cli/commands.h"
#include "client/cli/measure_backend.h"
#include "client/tune/tuner.h"
#include "common/measure/task.h"

namespace mrd::cli {

class DaemonMeasurer : public tune::Measurer {
 public:
  /// `task` is what the records name (its hardware num_cores should be the tuner's);
  /// `log_path` empty: no log.
  DaemonMeasurer(Common common, measure::Task task, measure::MeasureOptions options,
                 std::string log_path);

  std::vector<measure::MeasureResult> measure(const std::vector<tune::Candidate>& batch) override;
  /// kConfirmPasses passes over the batch, each with the options' repeats (at least one) and
  /// no skip-hopeless; each state is reported and logged once, after the last pass, as one
  /// record with the costs of every pass (an error if a pass failed). When a pass comes back
  /// short (interrupted, or the daemon gone), only the states every pass measured are
  /// reported and logged.
  std::vector<measure::MeasureResult> measure_again(
      const std::vector<tune::Candidate>& batch) override;

  /// Passes of a confirming measurement: at least as many repeats as TVM's own re-measure in
  /// bench-tvm-e2e (3).
  static constexpr int kConfirmPasses = 3;

  /// Cancels the request in flight and stops measuring; from any thread.
  void interrupt();
  /// True once interrupt() was called.
  bool interrupted() const { return interrupted_.load(); }

  /// The last transport or daemon failure, empty when none happened.
  const std::string& failure() const { return failure_; }
  /// A log write failure (the log stops at the first one), empty when none.
  const std::string& log_error() const { return log_error_; }
  /// Measurements made.
  size_t measured() const { return measured_; }

 private:
  /// One request; with `deliver`, each result of the prefix is reported and every measured
  /// result logged as it arrives.
  std::vector<measure::MeasureResult> measure_with(const std::vector<tune::Candidate>& batch,
                                                   const measure::MeasureOptions& options,
                                                   bool deliver);
  void log_result(const tune::Candidate& c, const measure::MeasureResult& r);

  Common common_;
  measure::Task task_;
  std::string task_bytes_;
  measure::MeasureOptions options_;
  std::string log_path_;
  std::mutex client_mutex_;  // guards client_ against interrupt()
  std::unique_ptr<MeasureBackend> client_;
  std::atomic<bool> interrupted_{false};
  std::string failure_;
  std::string log_error_;
  size_t measured_ = 0;
};

}  // namespace mrd::cli
