// The messages between measurerd and a measurerd-worker, over the worker's stdin/stdout
// pipes, in the same framing as the client protocol. The worker says WorkerReady once, then
// answers each BuildJob or RunJob with one JobResult carrying the same job id. A job names its
// task by digest and carries the task's bytes only when the daemon thinks the worker has not
// got them; a worker without them answers TaskMissing instead, and the daemon sends the job
// again with the bytes.
#pragma once

#include <cstdint>
#include <string>

#include "common/measure/measure_types.h"
#include "common/proto/messages.h"
#include "common/proto/task_digest.h"

namespace mrd::proto {

struct WorkerReady {
  static constexpr MessageType kType = MessageType::WorkerReady;
  int32_t pid = 0;
  uint16_t version = 1;
};

/// A job's task: always its digest; its bytes when `has_bytes`.
struct TaskRef {
  TaskDigest digest;
  bool has_bytes = false;
  std::string bytes;  ///< empty unless has_bytes; then digest.size bytes
};

/// Build one candidate: rebuild the task from bytes, apply `steps`, lower, compile.
struct BuildJob {
  static constexpr MessageType kType = MessageType::BuildJob;
  uint64_t job_id = 0;
  TaskRef task;
  std::string steps;  ///< JSON text of the transform steps
  measure::MeasureOptions options;
};

/// Time a built candidate.
struct RunJob {
  static constexpr MessageType kType = MessageType::RunJob;
  uint64_t job_id = 0;
  TaskRef task;
  std::string steps;
  std::string artifact;  ///< what the build returned (a path in the build cache)
  measure::MeasureOptions options;
  /// The best mean cost the daemon has seen for this task (seconds; 0: none yet), against
  /// which options.skip_hopeless judges the warm-up.
  double best_cost = 0;
};

/// The worker's answer to a job whose task it does not have (it never had it, or evicted it):
/// the job is not started; the daemon sends it again with the task's bytes.
struct TaskMissing {
  static constexpr MessageType kType = MessageType::TaskMissing;
  uint64_t job_id = 0;
  TaskDigest digest;
};

struct JobResult {
  static constexpr MessageType kType = MessageType::JobResult;
  uint64_t job_id = 0;
  measure::MeasureResult result;
  std::string artifact;  ///< set by a build
  bool retire = false;   ///< the worker asks to be replaced (it nears its CPU-time limit, or ends
                         ///< after a kernel call stuck past the run timeout)
};

}  // namespace mrd::proto
