// What a worker's end means for the job it had: the pure mapping from how a worker ended
// (its wait status, a timeout, a protocol error) to the job's result, as TVM's MeasureErrorNo —
// BUILD_TIMEOUT / RUN_TIMEOUT past a timeout, COMPILE_HOST for a death while building,
// RUNTIME_DEVICE for a death while running.
#pragma once

#include <string>

#include "daemon/server/worker_pool.h"

namespace mrd::daemon {

/// "killed by signal 11 (Segmentation fault)", "exited with status 3", "ended".
std::string describe_exit_status(int wait_status);

/// The result of the job a worker had when it ended. `how`: what happened to the worker
/// (describe_exit_status, or a protocol error); unused for a timeout. `now`: the timestamp.
measure::MeasureResult death_result(Phase phase, bool timed_out, int pid, const std::string& how,
                                    double now);

}  // namespace mrd::daemon
