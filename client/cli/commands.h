// The measurer subcommands. Each returns the process exit code (see exit_codes below) and
// reports its own errors on stderr.
#pragma once

#include <optional>
#include <string>

namespace mrd::cli {

/// Exit codes of measurer.
enum ExitCode : int {
  kOk = 0,             ///< done; every measurement without error
  kMeasureErrors = 1,  ///< done, but at least one result has a measure error
  kUsage = 2,          ///< bad command line, unreadable or invalid input file
  kUnavailable = 3,    ///< the daemon cannot be reached, refused the request or went away
  kInternal = 4,       ///< a bug in measurer
  kInterrupted = 130,  ///< Ctrl-C (128 + SIGINT, as a shell reports it): the request was cancelled
};

struct Common {
  std::string socket;  ///< empty: the default path
  bool json = false;
  /// Measure on the nodes of a broker instead of one measurerd (submit, tune, status).
  std::string broker;  ///< URL; empty: the local measurerd
  std::string broker_password_file;
  std::string device_key;  ///< empty: this machine's
  size_t broker_window = 32;
};

struct SubmitArgs {
  std::string task_file;
  std::string target;  ///< replaces the task file's target when not empty
  std::string log_file;
  bool quiet = false;  ///< no progress bar
  bool skip_hopeless = false;  ///< turns the option on whatever the task file says
  std::optional<double> skip_hopeless_factor;
};

struct ReplayArgs {
  std::string log_file;
  bool quiet = false;
};

struct TuneArgs {
  std::string workload;   ///< NAME:ARG,... (exclusive with task_file)
  std::string task_file;  ///< a task file whose workload (and options) are tuned
  int trials = 200;
  int batch = 64;
  uint64_t seed = 1;
  int confirm = 4;    ///< the best states measured again after the trials
  int num_cores = 0;  ///< 0: the task file's, else the daemon's cores
  std::string log_file;
  bool resume = false;
  bool show_c = false;
  std::string c_out;
  std::string dry_run;  ///< write the first batch as a task file instead of measuring
  bool quiet = false;
  std::optional<int> number, repeat, min_repeat_ms;
  bool no_skip_hopeless = false;  ///< skip-hopeless is on in tune unless this is set
  std::optional<double> skip_hopeless_factor;
  std::string target;  ///< replaces the task file's (default "llvm -keys=cpu") when not empty
};

struct BestArgs {
  std::string log_file;
  std::string export_dir;  ///< write each workload's best kernel here when not empty
};

struct PlotArgs {
  std::string log_file;
  std::string out = "curve.svg";
  std::string title;
};

int run_submit(const Common& common, const SubmitArgs& args);
int run_status(const Common& common);
int run_broker_status(const Common& common);
int run_workloads(const Common& common);
int run_replay(const Common& common, const ReplayArgs& args);
int run_tune(const Common& common, const TuneArgs& args);
int run_best(const Common& common, const BestArgs& args);
int run_plot(const Common& common, const PlotArgs& args);

}  // namespace mrd::cli
