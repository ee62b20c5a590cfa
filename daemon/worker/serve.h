// `measurerd-worker --serve`: the worker's loop under measurerd. It reads BuildJob and RunJob
// frames on stdin and answers each with one JobResult frame on stdout (after WorkerReady once
// at start), calling build_candidate / run_candidate — or with TaskMissing when the job names
// a task by digest that the worker does not keep (TaskCache). It applies the resource limits the
// daemon passes (none for the address space in a sanitizer build), dies with its daemon
// (PR_SET_PDEATHSIG), keeps stray output of compilers or kernels off the frame stream and gives
// its compilers a private TMPDIR. Fault workloads (faults.h) run only with --test-faults.
#pragma once

#include <cstdint>
#include <string>

#include "common/measure/pipeline.h"
#include "common/proto/task_digest.h"

namespace mrd::worker {

struct ServeOptions {
  measure::BuildConfig build;
  uint64_t limit_as_mb = 0;        ///< RLIMIT_AS in MiB; 0: unchanged
  uint64_t limit_cpu_seconds = 0;  ///< RLIMIT_CPU; 0: unchanged
  uint64_t limit_open_files = 0;   ///< RLIMIT_NOFILE; 0: unchanged
  /// Task bytes kept decoded (TaskCache); measurerd passes its --limit-task-cache-mb.
  uint64_t task_cache_mb = proto::kDefaultWorkerTaskCacheMb;
  /// Testing only: run fault.* workloads (see faults.h) instead of refusing them.
  bool test_faults = false;
  /// The compiler's TMPDIR, private to this worker and emptied at start; empty: inherited.
  std::string temp_dir;
};

/// Parses the --serve command line (see --help) and serves until stdin closes.
/// Exit codes: 0 stdin closed, 1 internal failure, 2 bad usage or a protocol error.
int serve_main(int argc, char** argv);

/// Serves jobs read from `in_fd`, results written to `out_fd`.
int serve(int in_fd, int out_fd, const ServeOptions& options);

}  // namespace mrd::worker
