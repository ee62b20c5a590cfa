#include "daemon/worker/once.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/dag/flop_count.h"
#include "common/ir/printer.h"
#include "common/measure/compiler_warm_up.h"
#include "common/measure/result_json.h"
#include "common/measure/task_file.h"
#include "common/registry/registry.h"
#include "common/util/error.h"

namespace mrd::worker {
namespace {

std::string result_line(size_t state, const measure::MeasureResult& r, double flops,
                        const measure::StageTimes* stages) {
  nlohmann::json j = measure::indexed_result_json(state, r, flops);
  if (stages) {
    j["stages"] = {{"deserialize", 0.0},         {"lower", stages->lower},     {"codegen", stages->codegen},
                   {"compile", stages->compile}, {"load", stages->load},       {"run", stages->run},
                   {"prepare", stages->prepare}, {"warmup", stages->warmup},   {"timed", stages->timed},
                   {"check", stages->check}};
    j["calls_saved"] = stages->calls_saved;
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Replaces this process by a fresh run of the same command from state `next`: a call that
// never returns cannot be stopped any other way.
[[noreturn]] void reexec_from(const std::vector<std::string>& argv, size_t next) {
  std::vector<std::string> args = argv;
  args.push_back("--resume-from");
  args.push_back(std::to_string(next));
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  std::fflush(stdout);
  ::execv("/proc/self/exe", cargs.data());
  ::_exit(measure::kStuckRunExitCode);
}

}  // namespace

int run_once(const OnceOptions& o) {
  measure::TaskFile tf;
  try {
    tf = measure::parse_task_file(measure::read_task_file_text(o.task_path));
  } catch (const UserError& e) {
    std::cerr << "measurerd-worker: " << o.task_path << ": " << e.what() << "\n";
    return 2;
  }
  measure::MeasureOptions options = tf.options;
  options.corrupt_output_for_test = o.corrupt_output_for_test;
  if (!o.target.empty()) tf.task.target = o.target;

  // The task travels as bytes, as it does to a daemon's worker.
  const std::string bytes = measure::task_to_binary(tf.task);
  double flops = 0;
  try {
    flops = dag::flop_count(dag::ComputeDAG(registry::Registry::global().instantiate(tf.task.workload)));
  } catch (const std::exception&) {
    flops = 0;  // each state reports the instantiation error itself
  }

  // A stuck call: report it, then continue with the next state in a fresh process image.
  static size_t current_state = 0;
  static const OnceOptions* once = &o;
  measure::set_stuck_run_handler([](const measure::MeasureResult& r) {
    std::cout << result_line(current_state, r, 0, nullptr) << std::endl;
    reexec_from(once->argv, current_state + 1);
  });

  // As a served worker does at start, so that the first state's compile is not the cold one.
  measure::warm_up_llvm(tf.task.target);

  bool any_error = false;
  double best_cost = 0;  // for skip_hopeless: the best mean cost among the states so far
  for (size_t i = o.resume_from; i < tf.states.size(); ++i) {
    current_state = i;
    measure::StageTimes stages;
    auto t = std::chrono::steady_clock::now();
    measure::Task task;
    try {
      task = measure::task_from_binary(bytes);
    } catch (const std::exception& e) {
      std::cerr << "measurerd-worker: internal error: the task does not survive its own encoding: " << e.what() << "\n";
      return 1;
    }
    double deserialize = seconds_since(t);

    measure::BuildOutput b = measure::build_candidate(task, tf.states[i], options, o.build);
    stages = b.stages;
    if (o.dump_ir && b.func.body.defined()) std::cerr << "// state " << i << ": lowered\n" << ir::to_string(b.func) << "\n";
    if (o.dump_c && !b.source.empty()) std::cerr << "// state " << i << ": source\n" << b.source << "\n";
    measure::MeasureResult r = b.result;
    if (r.error_no == measure::MeasureErrorNo::NoError) {
      r = measure::run_candidate(task, tf.states[i], b.artifact, options, &stages, best_cost);
      double m = measure::mean_cost(r);
      if (r.error_no == measure::MeasureErrorNo::NoError && !r.timing_skipped && m > 0 &&
          (best_cost == 0 || m < best_cost))
        best_cost = m;
      r.build_seconds = b.result.build_seconds;
      r.cache_hit = b.result.cache_hit;
      r.all_cost = r.build_seconds + r.run_seconds;
    }
    any_error = any_error || r.error_no != measure::MeasureErrorNo::NoError;
    std::string line = result_line(i, r, flops, o.profile_stages ? &stages : nullptr);
    if (o.profile_stages) {
      auto j = nlohmann::json::parse(line);
      j["stages"]["deserialize"] = deserialize;
      line = j.dump();
    }
    std::cout << line << std::endl;
  }
  return (o.fail_on_error && any_error) ? 3 : 0;
}

}  // namespace mrd::worker
