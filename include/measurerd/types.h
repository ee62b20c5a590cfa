// What a measurement is asked for and what it answers, with TVM auto_scheduler's names and
// meanings (MeasureErrorNo, MeasureResult, LocalBuilder/LocalRunner options). Plain values,
// no dependency beyond the standard library.
#pragma once

#include <string>
#include <vector>

namespace measurerd {

/// TVM's MeasureErrorNo; the numbers are part of the record format.
enum class ErrorNo : int {
  NoError = 0,
  InstantiationError = 1,
  CompileHost = 2,
  CompileDevice = 3,
  RuntimeDevice = 4,
  WrongAnswer = 5,
  BuildTimeout = 6,
  RunTimeout = 7,
  UnknownError = 8,
};
/// "NO_ERROR", "INSTANTIATION_ERROR", ...
const char* error_name(ErrorNo e);

/// Whether a timing may overlap builds or other timings on the machine.
enum class TimingPolicy : int { Exclusive = 0, Shared = 1 };
/// "exclusive" or "shared".
const char* timing_policy_name(TimingPolicy p);

/// How each state is timed and checked; the defaults are TVM's.
struct MeasureOptions {
  int number = 3;  ///< calls per repeat
  int repeat = 1;  ///< repeats, one cost each
  int min_repeat_ms = 100;
  double cooldown_interval = 0.0;  ///< seconds between repeats
  bool enable_cpu_cache_flush = false;
  double build_timeout = 15.0;     ///< seconds
  double run_timeout = 10.0;       ///< seconds
  bool check_correctness = false;  ///< compare the output with the reference interpreter
};

struct MeasureResult {
  std::vector<double> costs;  ///< seconds per call, one per repeat
  ErrorNo error_no = ErrorNo::NoError;
  std::string error_msg;
  double all_cost = 0.0;   ///< build + run seconds
  double timestamp = 0.0;  ///< seconds since the epoch when the result was made
  double build_seconds = 0.0;
  double run_seconds = 0.0;
  bool cache_hit = false;
  TimingPolicy policy = TimingPolicy::Exclusive;

  bool ok() const { return error_no == ErrorNo::NoError; }
};

/// Mean of the costs in seconds; 0 for none.
double mean_cost(const MeasureResult& r);
/// `flops` over the mean cost, in GFLOP/s; 0 for an error result or an unknown (<= 0) count.
double gflops(const MeasureResult& r, double flops);

/// True for the result of a state that was cancelled, not measured (UNKNOWN_ERROR "cancelled").
bool is_cancelled(const MeasureResult& r);

}  // namespace measurerd
