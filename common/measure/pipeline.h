// The measurement of one candidate (a task and a step list), in two halves that may run in
// different processes: build_candidate (instantiate the workload, apply the steps, lower,
// generate C, compile through the content-addressed cache) and run_candidate (load the shared
// object, take the task's arguments — filled for its first candidate and kept for the next,
// argument_cache.h — time with TVM's rules, optionally check the output against the
// reference interpreter). Neither throws: every failure is a MeasureResult with TVM's error
// code and a message.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/ir/stmt.h"
#include "common/measure/compiler.h"
#include "common/measure/measure_types.h"
#include "common/measure/task.h"

namespace mrd::measure {

struct BuildConfig {
  std::string cache_dir;  ///< empty: default_cache_dir()
  std::string compiler = "cc";
  std::vector<std::string> flags = {"-O3", "-march=native", "-fPIC", "-shared", "-fopenmp"};
};

/// Seconds spent in each stage of a candidate (0 for a stage that did not run).
struct StageTimes {
  double lower = 0;    ///< instantiate, apply steps, lower
  double codegen = 0;
  double compile = 0;  ///< compile and link, or the cache lookup on a hit
  double load = 0;
  double run = 0;      ///< taking the arguments and timing
  double prepare = 0;  ///< instantiating the workload and taking the arguments
  double warmup = 0;   ///< the warm-up call
  double timed = 0;    ///< the timed repeats (and any cooldown), after the warm-up
  double check = 0;    ///< the correctness check
  /// Timed calls that calibrating `number` from the warm-up saved (TVM would have thrown
  /// them away as too-short first attempts).
  int calls_saved = 0;
};

struct BuildOutput {
  /// error_no != NoError on failure; build_seconds, cache_hit and all_cost are always set.
  MeasureResult result;
  std::string artifact;  ///< path of the shared object
  StageTimes stages;
  ir::PrimFunc func;     ///< the lowered function (empty body when lowering failed)
  std::string source;    ///< the generated C or LLVM IR text (empty when code generation did not run)
};

BuildOutput build_candidate(const Task& task, const std::string& steps_json,
                            const MeasureOptions& options, const BuildConfig& config);
/// The same with an explicit compiler (tests count invocations through a fake).
BuildOutput build_candidate(const Task& task, const std::string& steps_json,
                            const MeasureOptions& options, const BuildConfig& config,
                            Compiler& compiler);

/// Times `artifact`. `stages`, when given, receives the load, run and check times.
/// `best_cost` (seconds, 0: none) is the best mean cost known for the task: with
/// options.skip_hopeless, a warm-up call slower than skip_hopeless_factor times it ends the
/// timing (a NO_ERROR result with timing_skipped, the warm-up's time as its cost, and a
/// message saying so).
MeasureResult run_candidate(const Task& task, const std::string& steps_json,
                            const std::string& artifact, const MeasureOptions& options,
                            StageTimes* stages = nullptr, double best_cost = 0);

/// Float tolerance of the correctness check: |got - want| <= atol + rtol * |want|.
/// float32: atol 1e-4, rtol 1e-3 (summation order differs between schedules); float64:
/// atol 1e-10, rtol 1e-9; integers and bools must match exactly. Rounding has a tail (an
/// output that cancels, a Winograd transform's constants): of an output's n float elements,
/// n / kRoundingTailPerElements (none below that many elements) may miss the tolerance by
/// up to kRoundingTailFactor times it; one element further off, or more elements off, fail.
/// A float element that misses the reference still passes when it is no farther from the exact
/// value (the DAG evaluated in float64, interp/float64_twin.h, once per task and only then)
/// than the reference is, give or take the tolerance: the reference sums in float32 one term
/// at a time, and over millions of terms another order (partial sums, a tiled reduction)
/// rounds less (norm_bmn(1, 4096, 1024): 12456.4 against the reference's 12437.2).
struct Tolerance {
  double atol, rtol;
};
inline constexpr int64_t kRoundingTailPerElements = 10000;
inline constexpr double kRoundingTailFactor = 10;
Tolerance correctness_tolerance(ir::DType t);

/// Called from the run watchdog when a kernel call is still running kStuckRunGraceSeconds
/// after the run timeout (a run that merely passes the timeout stops after its current call
/// and returns RUN_TIMEOUT). The call cannot be taken back, so the handler must end or replace
/// the process; it receives the RUN_TIMEOUT result. Without a handler, or when it returns,
/// the process exits with kStuckRunExitCode.
using StuckRunHandler = std::function<void(const MeasureResult&)>;
void set_stuck_run_handler(StuckRunHandler handler);
inline constexpr int kStuckRunExitCode = 124;
inline constexpr double kStuckRunGraceSeconds = 1.0;

}  // namespace mrd::measure
