#include "tests/soak/request_plan.h"

#include <algorithm>
#include <random>

#include "common/util/error.h"

namespace mrd::soak {
namespace {

using measure::MeasureErrorNo;
using registry::WorkloadArg;

/// A workload with states that lower, compile and run.
struct GoodWorkload {
  std::string name;
  std::vector<WorkloadArg> args;
  std::vector<std::string> states;
};

std::vector<GoodWorkload> good_workloads() {
  // Schedules taken from TVM auto_scheduler records of the same workloads and shapes.
  std::vector<GoodWorkload> out = {
      {"matmul",
       {int64_t(128), int64_t(96), int64_t(64), std::string("float32")},
       {"[]",
        R"([["CHW", 2, "local"], ["SP", 2, 0, 128, [1, 8, 8], 1], ["SP", 2, 4, 64, [1, 2, 32], 1], ["SP", 2, 8, 96, [3], 1], ["RE", 2, [0, 4, 1, 5, 8, 2, 6, 9, 3, 7]], ["FSP", 3, 0, 1, 2], ["FSP", 3, 3, 2, 2], ["RE", 3, [0, 3, 1, 4, 2, 5]], ["CA", 2, 3, 3], ["FU", 3, [0, 1, 2, 3]], ["AN", 3, 0, 3], ["PR", 2, 0, "auto_unroll_max_step$16"]])",
        R"([["CHW", 2, "local"], ["SP", 2, 0, 128, [1, 4, 32], 1], ["SP", 2, 4, 64, [4, 1, 1], 1], ["SP", 2, 8, 96, [48], 1], ["RE", 2, [0, 4, 1, 5, 8, 2, 6, 9, 3, 7]], ["FSP", 3, 0, 1, 1], ["FSP", 3, 2, 2, 1], ["RE", 3, [0, 2, 1, 3]], ["CA", 2, 3, 1], ["FU", 3, [0, 1]], ["AN", 3, 0, 3], ["PR", 2, 0, "auto_unroll_max_step$0"], ["AN", 2, 9, 2], ["AN", 3, 2, 2]])"}},
      {"matmul_add",
       {int64_t(96), int64_t(64), int64_t(80), std::string("float32")},
       {"[]",
        R"([["SP", 2, 0, 96, [12, 2, 4], 1], ["SP", 2, 4, 80, [8, 10, 1], 1], ["SP", 2, 8, 64, [32], 1], ["RE", 2, [0, 4, 1, 5, 8, 2, 6, 9, 3, 7]], ["CR", 4], ["FU", 2, [0, 1, 2, 3]], ["AN", 2, 0, 3], ["AN", 4, 0, 3], ["PR", 2, 0, "auto_unroll_max_step$64"], ["AN", 2, 6, 2]])"}},
      {"dense_bias_relu",
       {int64_t(16), int64_t(64), int64_t(48)},
       {"[]",
        R"([["CI", 4], ["SP", 2, 0, 16, [2, 4, 2], 1], ["SP", 2, 4, 48, [8, 3, 1], 1], ["SP", 2, 8, 64, [32], 1], ["RE", 2, [0, 4, 1, 5, 8, 2, 6, 9, 3, 7]], ["CR", 5], ["FU", 2, [0, 1, 2, 3]], ["AN", 2, 0, 3], ["FU", 5, [0, 1]], ["AN", 5, 0, 3], ["PR", 2, 0, "auto_unroll_max_step$64"], ["AN", 2, 6, 2]])"}},
      {"batch_matmul", {int64_t(2), int64_t(32), int64_t(48), int64_t(40)}, {"[]", R"([["CHW", 2, "local"], ["SP", 2, 0, 2, [1, 1, 2], 1], ["SP", 2, 4, 32, [4, 2, 1], 1], ["SP", 2, 8, 48, [1, 1, 8], 1], ["SP", 2, 12, 40, [2], 1], ["RE", 2, [0, 4, 8, 1, 5, 9, 12, 2, 6, 10, 13, 3, 7, 11]], ["FSP", 3, 0, 1, 2], ["FSP", 3, 3, 2, 2], ["FSP", 3, 6, 3, 2], ["RE", 3, [0, 3, 6, 1, 4, 7, 2, 5, 8]], ["CA", 2, 3, 5], ["FU", 3, [0, 1, 2]], ["AN", 3, 0, 3], ["PR", 2, 0, "auto_unroll_max_step$64"], ["AN", 2, 13, 2], ["AN", 3, 6, 2]])"}},
      {"softmax",
       {int64_t(32), int64_t(200)},
       {"[]",
        R"([["SP", 3, 1, 200, [5], 1], ["RF", 3, 2, 1], ["RE", 3, [0, 2, 1]], ["CR", 4], ["AN", 1, 0, 3], ["AN", 2, 0, 3], ["AN", 3, 0, 3], ["AN", 4, 0, 3], ["AN", 5, 0, 3], ["PR", 1, 0, "auto_unroll_max_step$512"], ["PR", 3, 0, "auto_unroll_max_step$0"], ["PR", 4, 0, "auto_unroll_max_step$64"], ["AN", 3, 2, 2]])"}},
  };
  // Small square matmuls with a few hand-written schedules: many distinct builds.
  for (int64_t n : {16, 24, 32, 48}) {
    out.push_back({"matmul",
                   {n, n, n, std::string("float32")},
                   {"[]", str_cat(R"([["SP", 2, 0, )", n, R"(, [8], 1]])"),
                    str_cat(R"([["SP", 2, 0, )", n, R"(, [4], 1], ["RE", 2, [0, 2, 1, 3]]])"),
                    str_cat(R"([["SP", 2, 1, )", n, R"(, [8], 1], ["AN", 2, 0, 3]])")}});
  }
  return out;
}

/// A schedule naming a stage no built-in workload has: the worker refuses it.
constexpr const char* kMissingStageState = R"([["SP", 99, 0, 8, [2], 1]])";

measure::Task function_task(const std::string& name, std::vector<WorkloadArg> args) {
  measure::Task t;
  t.workload = registry::FunctionWorkload{name, std::move(args)};
  return t;
}

std::string label_of(const std::string& name, const std::vector<WorkloadArg>& args) {
  return registry::function_workload_key(name, args);
}

/// Generous timeouts for inputs that must not time out, even on a loaded machine.
measure::MeasureOptions quick_options() {
  measure::MeasureOptions o;
  o.number = 1;
  o.repeat = 1;
  o.min_repeat_ms = 0;
  o.build_timeout = 20;
  o.run_timeout = 10;
  return o;
}

MeasureErrorNo fault_result(const std::string& kind) {
  if (kind == "infinite_loop") return MeasureErrorNo::RunTimeout;
  if (kind == "compiler_hang") return MeasureErrorNo::BuildTimeout;
  return MeasureErrorNo::RuntimeDevice;  // segfault, abort, runaway_alloc, exit_mid_reply
}

}  // namespace

const std::vector<std::string>& fault_kinds() {
  static const std::vector<std::string> kinds = {
      "segfault", "abort", "infinite_loop", "runaway_alloc", "exit_mid_reply", "compiler_hang"};
  return kinds;
}

std::vector<PlannedRequest> plan_requests(const PlanConfig& config) {
  std::mt19937_64 rng(config.seed);
  auto uniform = [&](size_t lo, size_t hi) {  // inclusive
    return std::uniform_int_distribution<size_t>(lo, hi)(rng);
  };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  const auto good = good_workloads();
  const auto& kinds = fault_kinds();

  std::vector<PlannedRequest> out;
  size_t planned = 0;
  size_t covered = 0;  // the first requests give every fault kind once, then the mix is random
  while (planned < config.inputs) {
    PlannedRequest r;
    r.options = quick_options();
    size_t left = config.inputs - planned;
    double pick = covered < kinds.size() ? 1.0 : std::uniform_real_distribution<double>(0, 1)(rng);
    if (pick < 0.62) {
      // Good candidates of one workload; now and then a schedule that must be refused.
      const GoodWorkload& w = good[uniform(0, good.size() - 1)];
      r.label = label_of(w.name, w.args);
      r.task = function_task(w.name, w.args);
      size_t n = std::min(left, uniform(1, 6));
      for (size_t i = 0; i < n; ++i) {
        if (chance(0.08)) {
          r.states.push_back(kMissingStageState);
          r.expected.push_back(MeasureErrorNo::InstantiationError);
        } else {
          r.states.push_back(w.states[uniform(0, w.states.size() - 1)]);
          r.expected.push_back(MeasureErrorNo::NoError);
        }
      }
    } else if (pick < 0.68) {
      r.label = label_of("no_such_workload", {int64_t(1)});
      r.task = function_task("no_such_workload", {int64_t(1)});
      size_t n = std::min(left, uniform(1, 2));
      r.states.assign(n, "[]");
      r.expected.assign(n, MeasureErrorNo::InstantiationError);
    } else {
      // A fault; the two that wait for a timeout are half as frequent, with short timeouts.
      std::string kind;
      if (covered < kinds.size()) {
        kind = kinds[covered++];
      } else {
        do {
          kind = kinds[uniform(0, kinds.size() - 1)];
        } while ((kind == "infinite_loop" || kind == "compiler_hang") && chance(0.5));
      }
      r.label = "fault." + kind;
      r.task = function_task(r.label, {});
      if (kind == "infinite_loop") r.options.run_timeout = 1;
      if (kind == "compiler_hang") r.options.build_timeout = 2;
      size_t n = std::min(left, uniform(1, 2));
      r.states.assign(n, "[]");
      r.expected.assign(
          n, config.faults_enabled ? fault_result(kind) : MeasureErrorNo::InstantiationError);
    }
    r.cut_after = chance(config.disconnect_rate) ? uniform(0, r.states.size() - 1)
                                                 : PlannedRequest::kNeverCut;
    planned += r.states.size();
    out.push_back(std::move(r));
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

}  // namespace mrd::soak
