// Fault workloads, for tests of the daemon's fault handling: a function workload named
// `fault.<kind>` (no arguments) makes the worker crash, hang or exhaust its memory on purpose,
// in the build or the run phase. The kinds are a fixed table of code in this file; from the
// peer only the name comes, matched against that table. A worker runs them only when started
// with `--test-faults`; otherwise every fault workload is refused with INSTANTIATION_ERROR.
//
//   segfault        run: writes through a null pointer (dies of SIGSEGV)
//   abort           run: abort() (dies of SIGABRT)
//   infinite_loop   run: spins until the daemon kills it at the run timeout
//   runaway_alloc   run: allocates and touches memory in chunks until allocation fails;
//                   refused (RUNTIME_DEVICE) without an address-space limit, or with one
//                   above a quarter of the available memory
//   exit_mid_reply  run: writes the first half of its JobResult frame, then _exit
//   compiler_hang   build: starts the system compiler on a pipe that is never closed and
//                   waits until the daemon kills the process group at the build timeout
// The build job of a run-phase fault succeeds at once with an empty artifact.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/measure/pipeline.h"
#include "common/measure/task.h"

namespace mrd::worker {

enum class FaultKind { Segfault, Abort, InfiniteLoop, RunawayAlloc, ExitMidReply, CompilerHang };

/// The workload name prefix of fault workloads.
inline constexpr const char* kFaultPrefix = "fault.";
/// The worker switch that enables them.
inline constexpr const char* kFaultSwitch = "--test-faults";

/// True when the task's workload is a function workload named `fault.*` (known kind or not).
bool is_fault_task(const measure::Task& task);

/// The kind named by `fault.<kind>`, or nullopt for any other name.
std::optional<FaultKind> fault_kind(const std::string& workload_name);

/// What a fault job needs from the worker.
struct FaultContext {
  bool enabled = false;  ///< the worker was started with --test-faults
  int out_fd = -1;       ///< the frame stream to the daemon
  uint64_t job_id = 0;
  const measure::BuildConfig* build = nullptr;
  std::string temp_dir;  ///< where the compiler writes (empty: $TMPDIR or /tmp)
};

/// The build job of a fault workload. Refusals and unknown kinds are INSTANTIATION_ERROR;
/// compiler_hang does not return while its compiler runs.
measure::MeasureResult fault_build(const measure::Task& task, const FaultContext& context);

/// The run job of a fault workload. segfault, abort and exit_mid_reply do not return;
/// infinite_loop never returns; runaway_alloc returns its RUNTIME_DEVICE result.
measure::MeasureResult fault_run(const measure::Task& task, const FaultContext& context);

}  // namespace mrd::worker
