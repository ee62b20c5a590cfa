// The measurer subcommands. Each returns the process exit code (see exit_codes below) and
// reports its own errors on stderr.
#pragma once

#include <string>

namespace mrd::cli {

/// Exit codes of measurer.
enum ExitCode : int {
  kOk = 0,             ///< done; every measurement without error
  kMeasureErrors = 1,  ///< done, but at least one result has a measure error
  kUsage = 2,          ///< bad command line, unreadable or invalid input file
  kUnavailable = 3,    ///< the daemon cannot be reached, refused the request or went away
  kInternal = 4,       ///< a bug in measurer
};

struct Common {
  std::string socket;  ///< empty: the default path
  bool json = false;
};

struct SubmitArgs {
  std::string task_file;
  std::string log_file;
  bool quiet = false;  ///< no progress bar
};

struct ReplayArgs {
  std::string log_file;
  bool quiet = false;
};

int run_submit(const Common& common, const SubmitArgs& args);
int run_status(const Common& common);
int run_workloads(const Common& common);
int run_replay(const Common& common, const ReplayArgs& args);

}  // namespace mrd::cli
