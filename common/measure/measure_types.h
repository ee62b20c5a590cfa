// What a measurement is asked for and what it answers, with TVM's names and meanings
// (auto_scheduler's MeasureInput / MeasureResult / MeasureErrorNo and the LocalBuilder /
// LocalRunner options).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mrd::measure {

/// TVM's MeasureErrorNo; the numbers are part of the record format.
enum class MeasureErrorNo : int {
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
std::string_view error_name(MeasureErrorNo e);

/// Whether a timing may overlap builds or other timings on the machine. `Pinned`: one timing
/// at a time, on cores no build uses, while builds run on the other cores.
enum class TimingPolicy : int { Exclusive = 0, Shared = 1, Pinned = 2 };
std::string_view timing_policy_name(TimingPolicy p);

/// What a run with check_correctness may take beyond its run timeout: the run timeout bounds
/// the kernel's calls, as TVM's runner's does; the reference interpreter's evaluation of the
/// workload (once per task in a worker, tens of MFLOP/s) comes on top.
inline constexpr double kCorrectnessCheckSeconds = 120.0;
/// The reference interpreter's budget within it: an evaluation still running then stops, and
/// the state's check is reported as one that cannot run, before the daemon's deadline ends the
/// worker.
inline constexpr double kReferenceBudgetSeconds = 100.0;

struct MeasureOptions {
  int number = 3;
  int repeat = 1;
  int min_repeat_ms = 100;
  double cooldown_interval = 0.0;  ///< seconds between repeats
  bool enable_cpu_cache_flush = false;
  double build_timeout = 15.0;     ///< seconds
  double run_timeout = 10.0;       ///< seconds
  bool check_correctness = false;
  /// Stop timing a candidate after its warm-up call when that call alone took more than
  /// skip_hopeless_factor times the best mean cost measured so far for the same task; its
  /// result then has the warm-up's time as its one cost and timing_skipped set.
  bool skip_hopeless = false;
  double skip_hopeless_factor = 10.0;
  /// Test only: perturbs the output before the correctness check, to prove WRONG_ANSWER.
  /// Never read from task files or the wire; set only by an explicit test switch.
  bool corrupt_output_for_test = false;
};

struct MeasureResult {
  std::vector<double> costs;  ///< seconds per call, one per repeat
  MeasureErrorNo error_no = MeasureErrorNo::NoError;
  std::string error_msg;
  double all_cost = 0.0;   ///< build + run seconds
  double timestamp = 0.0;  ///< seconds since the epoch when the result was made
  double build_seconds = 0.0;
  double run_seconds = 0.0;
  bool cache_hit = false;
  TimingPolicy policy = TimingPolicy::Exclusive;
  /// skip_hopeless stopped the timing after the warm-up: `costs` holds the warm-up call's time.
  bool timing_skipped = false;
};

}  // namespace mrd::measure
