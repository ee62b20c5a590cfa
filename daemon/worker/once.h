// `measurerd-worker --once TASK.json`: the whole measurement pipeline in one process, one
// JSON line per state on stdout. Each state goes through the same path as in the daemon: the
// task is rebuilt from its bytes, built through the compile cache, then timed.
#pragma once

#include <string>
#include <vector>

#include "common/measure/pipeline.h"

namespace mrd::worker {

struct OnceOptions {
  std::string task_path;
  measure::BuildConfig build;
  bool dump_ir = false;           ///< lowered PrimFunc of each state to stderr
  bool dump_c = false;            ///< generated source (C or LLVM IR) of each state to stderr
  std::string target;             ///< replaces the task file's target when not empty
  bool profile_stages = false;    ///< add per-stage seconds to each line
  bool fail_on_error = false;     ///< exit 3 when a state has a measure error
  bool corrupt_output_for_test = false;
  size_t resume_from = 0;         ///< first state to measure (after a stuck run)
  /// The command line without --resume-from, to re-exec after a stuck run.
  std::vector<std::string> argv;
};

/// Exit codes: 0 every state got a result line (measure errors included, unless
/// fail_on_error), 2 unreadable or invalid task file, 3 a measure error with fail_on_error.
int run_once(const OnceOptions& options);

}  // namespace mrd::worker
