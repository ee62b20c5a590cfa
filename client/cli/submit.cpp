// measurer submit TASK.json: measure every state of a task file. Ctrl-C cancels the request:
// the results that still arrive (finished or cancelled) are printed, the summary says how many
// were cancelled, and measurer exits 130; a second Ctrl-C exits at once.
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "client/cli/commands.h"
#include "client/cli/interrupt.h"
#include "client/cli/measure_backend.h"
#include "client/cli/output.h"
#include "client/lib/client.h"
#include "client/lib/workload_spec.h"
#include "common/codegen/target.h"
#include "common/dag/flop_count.h"
#include "common/measure/task_file.h"
#include "common/record/record.h"
#include "common/util/error.h"

namespace mrd::cli {
namespace {

/// The task's flop count, or 0 when this client cannot build its DAG (the daemon still
/// measures it and reports why).
double task_flops(const measure::Task& task) {
  try {
    return std::max(0.0, dag::flop_count(workload_dag(task.workload)));
  } catch (const std::exception&) {
    return 0;
  }
}

/// "3, 8-47": the indices as ranges.
std::string index_ranges(const std::vector<uint32_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(v[i]);
    if (j > i) out += "-" + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace

int run_submit(const Common& common, const SubmitArgs& args) {
  measure::TaskFile tf;
  try {
    std::ifstream in(args.task_file);
    MRD_USER_CHECK(in, "cannot read ", args.task_file);
    std::stringstream text;
    text << in.rdbuf();
    tf = measure::parse_task_file(text.str());
    if (!args.target.empty()) tf.task.target = args.target;
    codegen::parse_target(tf.task.target);
    if (args.skip_hopeless) tf.options.skip_hopeless = true;
    if (args.skip_hopeless_factor) tf.options.skip_hopeless_factor = *args.skip_hopeless_factor;
  } catch (const std::exception& e) {
    std::cerr << "measurer: " << e.what() << "\n";
    return kUsage;
  }
  auto backend = open_backend(common, "measurer");
  MeasureBackend& c = *backend;
  measure::Task record_task = tf.task;
  if (record_task.hardware.num_cores == 0)
    record_task.hardware.num_cores = static_cast<int>(c.cores());
  double flops = task_flops(tf.task);

  Progress progress(tf.states.size(), !args.quiet);
  size_t done = 0, errors = 0;
  std::vector<uint32_t> cancelled;  // indices
  if (!common.json) std::cout << table_header() << "\n";
  std::string log_error;
  {
    InterruptWatcher interrupt([&c] {
      if (c.cancel())
        std::cerr << "\nmeasurer: cancelling the request (Ctrl-C again to quit at once)\n";
    });
    auto on_result = [&](uint32_t i, const measure::MeasureResult& r, const std::string& node) {
      ++done;
      errors += r.error_no != measure::MeasureErrorNo::NoError;
      bool was_cancelled = client::is_cancelled(r);
      if (was_cancelled) cancelled.push_back(i);
      progress.clear();
      // The table leaves cancelled states to the summary; --json has every result.
      if (common.json) {
        auto j = measure::indexed_result_json(i, r, flops);
        if (!node.empty()) j["node"] = node;
        std::cout << j.dump() << "\n";
      } else if (!was_cancelled) {
        std::cout << table_row(i, r, flops) << (node.empty() ? "" : "  @" + node) << "\n";
      }
      std::cout.flush();
      // A cancelled input was never measured: it is no record.
      if (!args.log_file.empty() && log_error.empty() && !was_cancelled) {
        try {
          record::append_record(args.log_file, record::make_record(record_task, tf.states[i], r));
        } catch (const std::exception& e) {
          log_error = e.what();
        }
      }
      progress.update(done, errors);
    };
    c.measure(measure::task_to_binary(tf.task), tf.states, tf.options, on_result);
  }
  progress.finish();
  if (!log_error.empty()) {
    std::cerr << "measurer: " << log_error << "\n";
    return kUsage;
  }
  if (c.cancelled()) {
    std::cerr << "measurer: cancelled: " << done - cancelled.size() << " measured ("
              << errors - cancelled.size() << " with errors), " << cancelled.size()
              << " cancelled";
    if (!cancelled.empty()) std::cerr << " (#" << index_ranges(cancelled) << ")";
    if (!args.log_file.empty()) std::cerr << "; the measured ones are in " << args.log_file;
    std::cerr << "\n";
    return kInterrupted;
  }
  if (!common.json)
    std::cerr << done << " measured, " << errors << " with errors (timing policy "
              << c.policy_name() << ")\n";
  return errors ? kMeasureErrors : kOk;
}

}  // namespace mrd::cli
