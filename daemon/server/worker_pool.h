// The seam between the dispatcher and the worker processes. A pool runs one job (a build or a
// run of one candidate) per idle worker and reports its outcome once. The real pool spawns
// measurerd-worker processes; tests of the scheduling logic use a fake.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/measure/measure_types.h"
#include "common/proto/messages.h"
#include "common/proto/task_digest.h"

namespace mrd::daemon {

enum class Phase { Build, Run };

/// A request's serialized task and its digest, computed once and shared by the request's jobs.
struct TaskBytes {
  std::string bytes;
  proto::TaskDigest digest;
};

inline std::shared_ptr<const TaskBytes> make_task_bytes(std::string bytes) {
  auto t = std::make_shared<TaskBytes>();
  t->digest = proto::task_digest(bytes);
  t->bytes = std::move(bytes);
  return t;
}

struct Job {
  Phase phase = Phase::Build;
  std::shared_ptr<const TaskBytes> task;
  std::string steps;                        ///< JSON text of the transform steps
  std::string artifact;                     ///< for a run: what its build returned
  measure::MeasureOptions options;
  double best_cost = 0;  ///< for a run: the best mean cost of its task so far (0: none)
  /// Cores the job's worker is pinned to (the pinned policy); empty: every core.
  std::vector<int> cores;
};

struct JobOutcome {
  measure::MeasureResult result;
  std::string artifact;  ///< for a build that succeeded
};

using JobDone = std::function<void(JobOutcome)>;

class WorkerPool {
 public:
  virtual ~WorkerPool() = default;

  /// Workers ready for a job now.
  virtual size_t idle() const = 0;
  /// Configured number of workers.
  virtual size_t size() const = 0;
  /// Starts `job` on an idle worker (precondition: idle() > 0). `done` is called exactly once,
  /// later, from the event loop — never from inside submit() — unless the pool is stopped.
  virtual void submit(Job job, JobDone done) = 0;
  /// Moves every worker building now (its threads and the processes it started) onto
  /// `cores` (the pinned policy: off the cores of a run about to start, or back onto all).
  virtual void pin_builds(const std::vector<int>& cores) = 0;
  /// Called each time a worker becomes idle (a job finished, a worker (re)started).
  virtual void set_on_idle(std::function<void()> on_idle) = 0;
  virtual std::vector<proto::WorkerStatus> status() const = 0;
  /// Kills every worker; outstanding `done` callbacks are dropped.
  virtual void stop() = 0;
};

}  // namespace mrd::daemon
