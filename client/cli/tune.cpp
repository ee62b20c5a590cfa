// measurer tune: search a workload's schedules with the tuner, measuring each batch through
// measurerd; the record log grows as results arrive; the best few states are measured again
// (in passes over them, also logged) and the best schedule, as confirmed, is printed at the end.
// When measurerd goes away mid-run, tune stops at once, keeps the records received and says
// how --resume continues (exit 3); Ctrl-C cancels the batch in flight the same way (exit 130).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "client/cli/commands.h"
#include "client/cli/daemon_measurer.h"
#include "client/cli/measure_backend.h"
#include "client/cli/interrupt.h"
#include "client/cli/progress_display.h"
#include "client/cli/tvm_json.h"
#include "client/lib/client.h"
#include "client/lib/workload_spec.h"
#include "client/tune/tuner.h"
#include "common/codegen/c_codegen.h"
#include "common/codegen/target.h"
#include "common/dag/flop_count.h"
#include "common/lower/lower.h"
#include "common/measure/result_json.h"
#include "common/measure/task_file.h"
#include "common/record/record.h"
#include "common/registry/registry.h"
#include "common/schedule/transform_steps.h"
#include "common/util/error.h"

namespace mrd::cli {
namespace {

/// Captures the first batch instead of measuring it (for --dry-run).
class CaptureMeasurer : public tune::Measurer {
 public:
  std::vector<tune::Candidate> batch;
  std::vector<measure::MeasureResult> measure(const std::vector<tune::Candidate>& b) override {
    if (batch.empty()) batch = b;
    std::vector<measure::MeasureResult> r(b.size());
    for (auto& x : r) {
      x.error_no = measure::MeasureErrorNo::UnknownError;
      x.costs = {record::kErrorCost};
    }
    return r;
  }
};

struct Loaded {
  measure::Task task;
  measure::MeasureOptions options;
};

Loaded load_task(const TuneArgs& args) {
  Loaded l;
  MRD_USER_CHECK(args.workload.empty() != args.task_file.empty(),
                 "give exactly one of --workload and --task");
  if (!args.workload.empty()) {
    l.task.workload = parse_workload_spec(args.workload);
  } else {
    std::ifstream in(args.task_file);
    MRD_USER_CHECK(in, "cannot read ", args.task_file);
    std::stringstream text;
    text << in.rdbuf();
    auto tf = measure::parse_task_file(text.str());
    l.task = tf.task;
    l.options = tf.options;
    if (!tf.states.empty())
      std::cerr << "measurer tune: the task file's " << tf.states.size()
                << " states are not used; the search starts from the sketches\n";
  }
  if (!args.target.empty()) l.task.target = args.target;
  codegen::parse_target(l.task.target);  // a bad target is a usage error here, not per candidate
  if (args.number) l.options.number = *args.number;
  if (args.repeat) l.options.repeat = *args.repeat;
  if (args.min_repeat_ms) l.options.min_repeat_ms = *args.min_repeat_ms;
  l.options.skip_hopeless = !args.no_skip_hopeless;
  if (args.skip_hopeless_factor) l.options.skip_hopeless_factor = *args.skip_hopeless_factor;
  return l;
}

/// The log's records of this task, as tuner history.
std::vector<tune::TuneRecord> read_history(const std::string& path, const std::string& key,
                                           size_t* skipped) {
  std::vector<tune::TuneRecord> out;
  std::ifstream in(path);
  if (!in) return out;  // no log yet: nothing to resume
  for (const auto& r : record::read_records(in)) {
    if (r.workload_key != key) continue;
    try {
      out.push_back({tune::Candidate{schedule::steps_from_json(nlohmann::json::parse(r.steps))},
                     r.result});
    } catch (const std::exception&) {
      ++*skipped;
    }
  }
  return out;
}

int write_dry_run(const TuneArgs& args, const Loaded& l, const dag::ComputeDAG& dag,
                  int num_cores) {
  tune::Tuner tuner(dag, {args.trials, args.trials, args.seed, num_cores, 0});
  CaptureMeasurer capture;
  tuner.run(capture);
  nlohmann::json states = nlohmann::json::array();
  for (const auto& c : capture.batch) states.push_back(schedule::steps_to_json(c.steps));
  nlohmann::json tf;
  tf["workload"] = registry::workload_to_json(l.task.workload);
  tf["target"] = l.task.target;
  tf["hardware"] = {{"num_cores", num_cores}};
  tf["options"] = {{"number", l.options.number},
                   {"repeat", l.options.repeat},
                   {"min_repeat_ms", l.options.min_repeat_ms}};
  tf["states"] = states;
  std::ofstream out(args.dry_run);
  MRD_USER_CHECK(out, "cannot write ", args.dry_run);
  out << tf.dump() << "\n";
  out.close();
  MRD_USER_CHECK(out, "cannot write ", args.dry_run);
  std::cerr << "measurer tune: wrote " << states.size() << " candidates to " << args.dry_run
            << "\n";
  return kOk;
}

}  // namespace

int run_tune(const Common& common, const TuneArgs& args) {
  Loaded l;
  std::unique_ptr<dag::ComputeDAG> dag;
  std::string key;
  double flops = 0;
  try {
    MRD_USER_CHECK(args.trials > 0, "--trials must be positive");
    MRD_USER_CHECK(args.batch > 0, "--batch must be positive");
    MRD_USER_CHECK(args.confirm >= 0, "--confirm must not be negative");
    MRD_USER_CHECK(!args.resume || !args.log_file.empty(), "--resume needs --log");
    l = load_task(args);
    dag = std::make_unique<dag::ComputeDAG>(workload_dag(l.task.workload));
    key = registry::workload_key(l.task.workload);
    flops = dag::flop_count(*dag);
  } catch (const std::exception& e) {
    std::cerr << "measurer tune: " << e.what() << "\n";
    return kUsage;
  }

  int num_cores = args.num_cores > 0 ? args.num_cores : l.task.hardware.num_cores;
  if (!args.dry_run.empty()) {
    if (num_cores <= 0) num_cores = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    return write_dry_run(args, l, *dag, num_cores);
  }
  {
    auto probe = open_backend(common, "measurer tune");  // fail early when unreachable
    if (num_cores <= 0) num_cores = static_cast<int>(probe->cores());
  }
  l.task.hardware.num_cores = num_cores;

  size_t resumed = 0;
  std::vector<tune::TuneRecord> history;
  if (args.resume) {
    size_t skipped = 0;
    try {
      history = read_history(args.log_file, key, &skipped);
    } catch (const std::exception& e) {
      std::cerr << "measurer tune: " << args.log_file << ": " << e.what() << "\n";
      return kUsage;
    }
    resumed = history.size();
    std::cerr << "measurer tune: resuming from " << resumed << " records of " << key;
    if (skipped) std::cerr << " (" << skipped << " unreadable steps skipped)";
    std::cerr << "\n";
  }

  // The display starts before the tuner: sketch generation is its first phase.
  std::unique_ptr<ProgressDisplay> progress;
  if (!args.quiet)
    progress = std::make_unique<ProgressDisplay>(std::cerr, ProgressDisplay::stderr_mode(),
                                                 ProgressDisplay::stderr_width());
  tune::Tuner tuner(*dag, {args.trials, args.batch, args.seed, num_cores, args.confirm},
                    progress.get());
  tuner.add_history(history);

  DaemonMeasurer measurer(common, l.task, l.options, args.log_file);
  std::vector<tune::TuneRecord> records;
  {
    InterruptWatcher interrupt([&measurer] {
      measurer.interrupt();
      std::cerr << "\nmeasurer tune: stopping after the results in flight (Ctrl-C again to quit "
                   "at once)\n";
    });
    records = tuner.run(measurer);
  }
  if (progress) progress->finish();

  size_t errors = 0;
  for (const auto& r : records) errors += r.result.error_no != measure::MeasureErrorNo::NoError;
  const tune::TuneRecord* best = tuner.best();

  nlohmann::json j;
  j["workload_key"] = key;
  j["trials"] = records.size();
  j["resumed"] = resumed;
  j["errors"] = errors;
  j["confirmed"] = tuner.confirmations().size();
  if (!measurer.failure().empty()) j["stopped"] = measurer.failure();
  else if (measurer.interrupted()) j["stopped"] = "interrupted";
  std::string c_source;
  if (best) {
    double cost = tune::mean_cost(best->result);
    j["best_cost"] = cost;
    j["best_gflops"] = flops > 0 ? flops / cost / 1e9 : 0.0;
    j["result"] = measure::result_json(best->result, flops);
    j["steps"] = schedule::steps_to_json(best->candidate.steps);
    j["record"] = record::to_json_line(record::make_record(
        l.task, schedule::steps_to_json(best->candidate.steps).dump(), best->result));
    if (args.show_c || !args.c_out.empty()) {
      try {
        c_source = codegen::emit_c(lower::lower(*dag, best->candidate.steps, lower::Backend::C));
      } catch (const std::exception& e) {
        std::cerr << "measurer tune: cannot lower the best schedule: " << e.what() << "\n";
        return kInternal;
      }
    }
  }
  if (!args.c_out.empty() && best) {
    std::ofstream out(args.c_out);
    out << c_source;
    out.close();
    if (!out) {
      std::cerr << "measurer tune: cannot write " << args.c_out << "\n";
      return kUsage;
    }
  }
  if (common.json) {
    if (args.show_c && best) j["c"] = c_source;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << "workload  " << key << "\n"
              << "trials    " << records.size() << " measured (" << errors << " with errors)";
    if (resumed) std::cout << ", " << resumed << " resumed from the log";
    if (!tuner.confirmations().empty())
      std::cout << "; the best " << tuner.confirmations().size() << " measured again";
    if (!measurer.failure().empty())
      std::cout << "; stopped early, measurerd went away";
    else if (measurer.interrupted())
      std::cout << "; stopped early by Ctrl-C";
    std::cout << "\n";
    if (best) {
      char line[128];
      std::snprintf(line, sizeof line, "best      %.4f ms, %.2f GFLOP/s\n",
                    j["best_cost"].get<double>() * 1e3, j["best_gflops"].get<double>());
      std::cout << line << "steps     " << tvm_json(j["steps"]) << "\n"
                << "record    " << j["record"].get<std::string>() << "\n";
      if (args.show_c)
        std::cout << "\n" << c_source;
      else if (!args.c_out.empty())
        std::cout << "C         written to " << args.c_out << "\n";
      else
        std::cout << "(--show-c prints the lowered C of the best schedule, --c-out FILE writes it)\n";
    } else {
      std::cout << "best      none: no candidate was measured without error\n";
    }
  }
  if (!measurer.log_error().empty()) {
    std::cerr << "measurer tune: log " << args.log_file << ": " << measurer.log_error() << "\n";
    return kUsage;
  }
  if (!measurer.failure().empty()) {
    std::cerr << "measurer tune: stopped after " << records.size() << " of " << args.trials
              << " trials: " << measurer.failure() << "\n";
    if (!args.log_file.empty())
      std::cerr << "measurer tune: the results received are in " << args.log_file
                << "; once measurerd is back, the same command with --resume continues from them\n";
    else
      std::cerr << "measurer tune: no --log was given, so this run's results are lost; use --log "
                   "FILE (and --resume to continue a run)\n";
    return kUnavailable;
  }
  if (measurer.interrupted()) {
    std::cerr << "measurer tune: interrupted after " << records.size() << " of " << args.trials
              << " trials";
    if (!args.log_file.empty())
      std::cerr << "; the results are in " << args.log_file
                << " and the same command with --resume continues from them";
    std::cerr << "\n";
    return kInterrupted;
  }
  return best ? kOk : kMeasureErrors;
}

}  // namespace mrd::cli
