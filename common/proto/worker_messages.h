// The messages between measurerd and a measurerd-worker, over the worker's stdin/stdout
// pipes, in the same framing as the client protocol. The worker says WorkerReady once, then
// answers each BuildJob or RunJob with one JobResult carrying the same job id.
#pragma once

#include <cstdint>
#include <string>

#include "common/measure/measure_types.h"
#include "common/proto/messages.h"

namespace mrd::proto {

struct WorkerReady {
  static constexpr MessageType kType = MessageType::WorkerReady;
  int32_t pid = 0;
  uint16_t version = 1;
};

/// Build one candidate: rebuild the task from bytes, apply `steps`, lower, compile.
struct BuildJob {
  static constexpr MessageType kType = MessageType::BuildJob;
  uint64_t job_id = 0;
  std::string task;
  std::string steps;  ///< JSON text of the transform steps
  measure::MeasureOptions options;
};

/// Time a built candidate.
struct RunJob {
  static constexpr MessageType kType = MessageType::RunJob;
  uint64_t job_id = 0;
  std::string task;
  std::string steps;
  std::string artifact;  ///< what the build returned (a path in the build cache)
  measure::MeasureOptions options;
  /// The best mean cost the daemon has seen for this task (seconds; 0: none yet), against
  /// which options.skip_hopeless judges the warm-up.
  double best_cost = 0;
};

struct JobResult {
  static constexpr MessageType kType = MessageType::JobResult;
  uint64_t job_id = 0;
  measure::MeasureResult result;
  std::string artifact;  ///< set by a build
  bool retire = false;   ///< the worker asks to be replaced (it nears its CPU-time limit)
};

}  // namespace mrd::proto
