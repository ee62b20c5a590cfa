#include "common/measure/pipeline.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "common/codegen/c_codegen.h"
#include "common/codegen/llvm_codegen.h"
#include "common/codegen/target.h"
#include "common/dag/compute_dag.h"
#include "common/interp/float64_twin.h"
#include "common/interp/reference_interpreter.h"
#include "common/lower/lower.h"
#include "common/measure/argument_cache.h"
#include "common/measure/build_cache.h"
#include "common/measure/host_args.h"
#include "common/measure/kernel.h"
#include "common/measure/llvm_compiler.h"
#include "common/measure/pretransformed_args.h"
#include "common/measure/system_compiler.h"
#include "common/measure/timer.h"
#include "common/registry/registry.h"
#include "common/schedule/transform_steps.h"
#include "common/util/error.h"

namespace mrd::measure {
namespace {

constexpr size_t kMaxMessageBytes = 4096;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double wall_clock_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string clip(std::string msg) {
  if (msg.size() > kMaxMessageBytes) msg = msg.substr(0, kMaxMessageBytes) + "\n... (truncated)";
  return msg;
}

MeasureResult error_result(MeasureErrorNo e, std::string msg) {
  MeasureResult r;
  r.error_no = e;
  r.error_msg = clip(std::move(msg));
  r.timestamp = wall_clock_now();
  return r;
}

dag::ComputeDAG instantiate(const Task& task) {
  return dag::ComputeDAG(registry::Registry::global().instantiate(task.workload));
}

// One SystemCompiler per compiler name, resolved once per process.
Compiler& system_compiler(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<SystemCompiler>> compilers;
  std::lock_guard<std::mutex> lock(mu);
  auto& c = compilers[name];
  if (!c) c = std::make_unique<SystemCompiler>(name);
  return *c;
}

// One LlvmCompiler per target string, made once per process.
Compiler& llvm_compiler(const codegen::Target& target) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<LlvmCompiler>> compilers;
  std::lock_guard<std::mutex> lock(mu);
  auto& c = compilers[target.text];
  if (!c) c = std::make_unique<LlvmCompiler>(target);
  return *c;
}

lower::Backend backend_of(const codegen::Target& t) {
  return t.kind == codegen::TargetKind::LLVM ? lower::Backend::LLVM : lower::Backend::C;
}

std::mutex g_handler_mu;
StuckRunHandler g_stuck_handler;

// At the run timeout, sets `expired` so the timer stops after the call in progress; if that
// call is still running kStuckRunGraceSeconds later, it cannot be taken back and the
// stuck-run handler ends the process.
class RunWatchdog {
 public:
  RunWatchdog(double timeout, MeasureResult on_stuck) : result_(std::move(on_stuck)) {
    thread_ = std::thread([this, timeout] {
      std::unique_lock<std::mutex> lock(mu_);
      auto done = [this] { return done_; };
      if (cv_.wait_for(lock, std::chrono::duration<double>(timeout), done)) return;
      expired_.store(true);
      if (cv_.wait_for(lock, std::chrono::duration<double>(kStuckRunGraceSeconds), done)) return;
      StuckRunHandler h;
      {
        std::lock_guard<std::mutex> g(g_handler_mu);
        h = g_stuck_handler;
      }
      if (h) h(result_);
      ::_exit(kStuckRunExitCode);
    });
  }
  ~RunWatchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  const std::atomic<bool>& expired() const { return expired_; }

 private:
  MeasureResult result_;
  std::atomic<bool> expired_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// The reference outputs of the last task checked, or why it has none, so the states of one
// task share them.
struct ReferenceCache {
  std::mutex mu;
  std::string key;
  std::vector<interp::HostTensor> outputs;
  std::string failure;  ///< the interpreter's UserError, when it gave one
  /// The exact twin's outputs (float64_twin.h), evaluated for the first element that misses
  /// the reference; empty when it could not be (the budget passed).
  bool exact_evaluated = false;
  std::vector<interp::HostTensor> exact;
};

const std::vector<interp::HostTensor>& reference_outputs(const Task& task, const dag::ComputeDAG& dag,
                                                         const HostArgs& args, ReferenceCache& cache) {
  std::string key = registry::workload_key(task.workload);
  if (cache.key != key) {
    cache.outputs.clear();
    cache.failure.clear();
    cache.exact_evaluated = false;
    cache.exact.clear();
    try {
      cache.outputs = interp::evaluate(dag, args.inputs(), kReferenceBudgetSeconds);
    } catch (const UserError& e) {
      cache.failure = e.what();
    }
    cache.key = key;
  }
  if (!cache.failure.empty()) throw UserError(cache.failure);
  return cache.outputs;
}

/// The exact twin's outputs for the task `cache` holds, or null when they cannot be had.
const std::vector<interp::HostTensor>* exact_outputs(const dag::ComputeDAG& dag,
                                                     const HostArgs& args, ReferenceCache& cache) {
  if (!cache.exact_evaluated) {
    cache.exact_evaluated = true;
    try {
      cache.exact =
          interp::evaluate(interp::float64_twin(dag), interp::float64_inputs(args.inputs()),
                           kReferenceBudgetSeconds);
    } catch (const UserError&) {
      // No twin (its budget passed): the reference alone judges.
    }
  }
  return cache.exact.empty() ? nullptr : &cache.exact;
}

// An empty string when the outputs match the reference, else what differs. `exact` gives the
// exact twin's outputs (or null; evaluated once, by its first call), called only when a float
// element misses the reference.
std::string compare_outputs(const dag::ComputeDAG& dag, const HostArgs& args,
                            const std::vector<interp::HostTensor>& want,
                            const std::function<const std::vector<interp::HostTensor>*()>& exact) {
  const auto& outs = args.output_positions();
  MRD_CHECK(outs.size() == want.size(), "reference has ", want.size(), " outputs, kernel ", outs.size());
  for (size_t o = 0; o < outs.size(); ++o) {
    size_t pos = outs[o];
    const interp::HostTensor& ref = want[o];
    MRD_CHECK(int64_t(ref.data.size()) == args.elements(pos), "reference output size mismatch");
    Tolerance tol = correctness_tolerance(ref.dtype);
    const bool is_float = ir::is_float(ref.dtype);
    int64_t bad = 0, tail = 0, first_bad = -1, first_tail = -1;
    for (int64_t i = 0; i < args.elements(pos); ++i) {
      double got = args.value(pos, i), exp = ref.data[i];
      bool ok = false, near = false;  // near: in rounding's tail
      if (!is_float) {
        ok = got == exp;
      } else if (std::isnan(exp)) {
        ok = std::isnan(got);
      } else {
        // A NaN got fails both comparisons.
        double off = std::fabs(got - exp), bound = tol.atol + tol.rtol * std::fabs(exp);
        ok = off <= bound;
        if (!ok) {
          // No farther from the exact value than the reference itself is, give or take the
          // tolerance: a summation order that rounds less than the reference's.
          if (const std::vector<interp::HostTensor>* exact_out = exact()) {
            double e = (*exact_out)[o].data[i];
            ok = std::fabs(got - e) <= tol.atol + tol.rtol * std::fabs(e) + std::fabs(exp - e);
          }
        }
        near = off <= kRoundingTailFactor * bound;
      }
      if (ok) continue;
      int64_t& first = near ? first_tail : first_bad;
      if (first < 0) first = i;
      ++(near ? tail : bad);
    }
    if (tail > args.elements(pos) / kRoundingTailPerElements) bad += tail;
    int64_t first = first_bad >= 0 ? first_bad : first_tail;
    if (bad > 0) {
      return str_cat(bad, " of ", args.elements(pos), " elements of output ", o, " differ from the reference; first at flat index ",
                     first, ": got ", args.value(pos, first), ", expected ", ref.data[first]);
    }
  }
  return "";
}

/// Under layout_rewrite_option 2, the copies of the layout-free inputs in the layouts the
/// candidate's steps give them; nullopt when the steps rewrite no layout.
std::optional<PreTransformedArgs> pretransformed_args(const dag::ComputeDAG& dag, const std::string& steps_json,
                                                      const HostArgs& args) {
  std::vector<schedule::Step> steps = schedule::steps_from_json(nlohmann::json::parse(steps_json));
  auto r = lower::rewrite_layout(dag, steps, lower::LayoutRewrite::RewriteForPreTransformed);
  if (!r || r->pretransformed.empty()) return std::nullopt;
  return std::optional<PreTransformedArgs>(std::in_place, args, r->pretransformed);
}

}  // namespace

Tolerance correctness_tolerance(ir::DType t) {
  if (t == ir::DType::Float32) return {1e-4, 1e-3};
  if (t == ir::DType::Float64) return {1e-10, 1e-9};
  return {0, 0};
}

void set_stuck_run_handler(StuckRunHandler handler) {
  std::lock_guard<std::mutex> lock(g_handler_mu);
  g_stuck_handler = std::move(handler);
}

BuildOutput build_candidate(const Task& task, const std::string& steps_json, const MeasureOptions& options,
                            const BuildConfig& config) {
  try {
    codegen::Target target;
    try {
      target = codegen::parse_target(task.target);
    } catch (const UserError& e) {
      BuildOutput out;
      out.result = error_result(MeasureErrorNo::InstantiationError, e.what());
      return out;
    }
    Compiler& compiler =
        target.kind == codegen::TargetKind::LLVM ? llvm_compiler(target) : system_compiler(config.compiler);
    return build_candidate(task, steps_json, options, config, compiler);
  } catch (const std::exception& e) {
    BuildOutput out;
    out.result = error_result(MeasureErrorNo::CompileHost, str_cat("cannot set up the compiler: ", e.what()));
    return out;
  }
}

BuildOutput build_candidate(const Task& task, const std::string& steps_json, const MeasureOptions& options,
                            const BuildConfig& config, Compiler& compiler) {
  BuildOutput out;
  auto start = std::chrono::steady_clock::now();
  auto finish = [&](MeasureResult r) {
    r.build_seconds = seconds_since(start);
    r.all_cost = r.build_seconds;
    r.timestamp = wall_clock_now();
    out.result = std::move(r);
    return std::move(out);
  };
  try {
    // Instantiate the workload, apply the steps, lower for the target's backend.
    codegen::Target target;
    try {
      target = codegen::parse_target(task.target);
      dag::ComputeDAG dag = instantiate(task);
      nlohmann::json steps;
      try {
        steps = nlohmann::json::parse(steps_json);
      } catch (const nlohmann::json::exception& e) {
        throw UserError(str_cat("the steps are not valid JSON: ", e.what()));
      }
      out.func = lower::lower(dag, schedule::steps_from_json(steps), backend_of(target),
                              static_cast<lower::LayoutRewrite>(task.layout_rewrite_option));
    } catch (const UserError& e) {
      out.stages.lower = seconds_since(start);
      return finish(error_result(MeasureErrorNo::InstantiationError, e.what()));
    } catch (const nlohmann::json::exception& e) {
      out.stages.lower = seconds_since(start);
      return finish(error_result(MeasureErrorNo::InstantiationError, str_cat("bad steps: ", e.what())));
    }
    out.stages.lower = seconds_since(start);
    if (seconds_since(start) > options.build_timeout) {
      return finish(error_result(MeasureErrorNo::BuildTimeout, "lowering passed the build timeout"));
    }

    auto t = std::chrono::steady_clock::now();
    bool llvm = target.kind == codegen::TargetKind::LLVM;
    out.source = llvm ? codegen::emit_llvm(out.func, target) : codegen::emit_c(out.func);
    out.stages.codegen = seconds_since(t);

    t = std::chrono::steady_clock::now();
    BuildCache cache(config.cache_dir.empty() ? default_cache_dir() : config.cache_dir, compiler);
    // The LLVM compiler's identity carries its target and options; the C compiler's flags.
    const std::vector<std::string> no_flags;
    CachedBuild built = cache.get_or_build(out.source, llvm ? no_flags : config.flags,
                                           options.build_timeout - seconds_since(start));
    out.stages.compile = seconds_since(t);
    MeasureResult r;
    r.cache_hit = built.cache_hit;
    switch (built.outcome.status) {
      case CompileOutcome::Status::Ok:
        out.artifact = built.artifact;
        break;
      case CompileOutcome::Status::TimedOut:
        r = error_result(MeasureErrorNo::BuildTimeout, built.outcome.message);
        break;
      case CompileOutcome::Status::Failed:
        r = error_result(MeasureErrorNo::CompileHost, built.outcome.message);
        break;
    }
    return finish(std::move(r));
  } catch (const InternalError& e) {
    return finish(error_result(MeasureErrorNo::CompileHost, str_cat("internal error: ", e.what())));
  } catch (const std::exception& e) {
    return finish(error_result(MeasureErrorNo::CompileHost, e.what()));
  }
}

MeasureResult run_candidate(const Task& task, const std::string& steps_json, const std::string& artifact,
                            const MeasureOptions& options, StageTimes* stages, double best_cost) {
  static ReferenceCache reference_cache;
  static ArgumentCache argument_cache;
  StageTimes local;
  StageTimes& st = stages ? *stages : local;
  auto start = std::chrono::steady_clock::now();
  // The task's arguments, kept from its previous candidate when there was one: they go back
  // to the cache however the run ends (unless the kernel changed an input), and the check of
  // that counts in the run's seconds.
  std::string task_key;
  std::unique_ptr<HostArgs> args;
  auto finish = [&](MeasureResult r) {
    if (args) argument_cache.put_back(task_key, std::move(args));
    r.run_seconds = seconds_since(start);
    r.all_cost = r.run_seconds;
    r.timestamp = wall_clock_now();
    return r;
  };
  try {
    auto t = std::chrono::steady_clock::now();
    dag::ComputeDAG dag = [&] {
      try {
        return instantiate(task);
      } catch (const UserError& e) {
        throw std::invalid_argument(e.what());
      }
    }();
    st.prepare = seconds_since(t);
    TimingAffinity affinity;  // libgomp's binding of this thread lasts for the run only
    configure_openmp(task.hardware.num_cores);
    affinity.bind_to_openmp_place();

    t = std::chrono::steady_clock::now();
    std::unique_ptr<Kernel> kernel;
    try {
      kernel = std::make_unique<Kernel>(Kernel::load(artifact));
    } catch (const std::exception& e) {
      return finish(error_result(MeasureErrorNo::RuntimeDevice, e.what()));
    }
    st.load = seconds_since(t);

    t = std::chrono::steady_clock::now();
    auto prepare_start = t;
    task_key = registry::workload_key(task.workload);
    try {
      args = argument_cache.take(task_key, dag);
    } catch (const std::runtime_error& e) {
      return finish(error_result(MeasureErrorNo::RuntimeDevice, e.what()));
    }
    std::optional<PreTransformedArgs> pretransformed;
    if (task.layout_rewrite_option == static_cast<int>(lower::LayoutRewrite::RewriteForPreTransformed)) {
      try {
        pretransformed = pretransformed_args(dag, steps_json, *args);
      } catch (const std::exception& e) {
        return finish(error_result(MeasureErrorNo::RuntimeDevice,
                                   str_cat("cannot lay out the pre-transformed inputs: ", e.what())));
      }
    }
    st.prepare += seconds_since(prepare_start);

    SteadyClock clock;
    TimerConfig cfg;
    cfg.number = options.number;
    cfg.repeat = options.repeat;
    cfg.min_repeat_ms = options.min_repeat_ms;
    cfg.cooldown_interval = options.cooldown_interval;
    cfg.cache_flush = options.enable_cpu_cache_flush;
    cfg.calibrate_from_warmup = true;
    bool may_skip = options.skip_hopeless && best_cost > 0;
    if (may_skip) cfg.give_up_after_warmup = options.skip_hopeless_factor * best_cost;
    double remaining = options.run_timeout - seconds_since(start);
    cfg.deadline = clock.now() + std::max(remaining, 0.0);
    int32_t status = 0;
    TimerOutcome timed;
    {
      MeasureResult timeout = error_result(
          MeasureErrorNo::RunTimeout, str_cat("one call of the kernel ran past the run timeout of ", options.run_timeout, " s"));
      timeout.run_seconds = timeout.all_cost = options.run_timeout + kStuckRunGraceSeconds;
      RunWatchdog watchdog(std::max(remaining, 0.0), timeout);
      cfg.stop = &watchdog.expired();
      const HostArgs& a = *args;
      const Kernel& k = *kernel;
      void* const* pointers = pretransformed ? pretransformed->pointers() : a.pointers();
      auto flush = [&] {
        a.flush_inputs();
        if (pretransformed) pretransformed->flush();
      };
      timed = time_calls([&] { status |= k(pointers); }, flush, cfg, clock);
    }
    st.run = seconds_since(t);
    st.warmup = timed.warmup_seconds;
    st.timed = timed.timed_seconds;
    st.calls_saved = timed.calls_saved;
    if (status != 0) {
      return finish(error_result(MeasureErrorNo::RuntimeDevice, "the kernel could not allocate its local storage"));
    }
    if (timed.timed_out) {
      return finish(error_result(MeasureErrorNo::RunTimeout,
                                 str_cat("the run passed its timeout of ", options.run_timeout, " s after ",
                                         timed.costs.size(), " of ", std::max(1, options.repeat), " repeats")));
    }
    MeasureResult r;
    r.costs = timed.costs;
    if (timed.skipped) {
      r.timing_skipped = true;
      r.error_msg = str_cat("timing skipped: the warm-up call took ", timed.warmup_seconds * 1e3, " ms, more than ",
                            options.skip_hopeless_factor, " x the best mean cost so far (", best_cost * 1e3, " ms)");
    }

    if (options.check_correctness || options.corrupt_output_for_test) {
      t = std::chrono::steady_clock::now();
      if (options.corrupt_output_for_test) {
        for (size_t pos : args->output_positions()) args->perturb(pos, 0, 1.0 + std::fabs(args->value(pos, 0)));
      }
      if (options.check_correctness) {
        std::lock_guard<std::mutex> lock(reference_cache.mu);
        std::string diff;
        try {
          diff = compare_outputs(dag, *args, reference_outputs(task, dag, *args, reference_cache),
                                 [&] { return exact_outputs(dag, *args, reference_cache); });
        } catch (const UserError& e) {
          return finish(error_result(MeasureErrorNo::UnknownError,
                                     str_cat("the correctness check cannot run: ", e.what())));
        }
        if (!diff.empty()) {
          st.check = seconds_since(t);
          MeasureResult w = error_result(MeasureErrorNo::WrongAnswer, diff);
          w.costs = timed.costs;
          return finish(std::move(w));
        }
      }
      st.check = seconds_since(t);
    }
    return finish(std::move(r));
  } catch (const std::invalid_argument& e) {
    return finish(error_result(MeasureErrorNo::InstantiationError, e.what()));
  } catch (const std::exception& e) {
    return finish(error_result(MeasureErrorNo::RuntimeDevice, e.what()));
  }
}

}  // namespace mrd::measure
