// measurer submit TASK.json: measure every state of a task file.
#include <fstream>
#include <iostream>
#include <sstream>

#include "client/cli/commands.h"
#include "client/cli/output.h"
#include "client/lib/client.h"
#include "common/measure/task_file.h"
#include "common/record/record.h"
#include "common/util/error.h"

namespace mrd::cli {

int run_submit(const Common& common, const SubmitArgs& args) {
  measure::TaskFile tf;
  try {
    std::ifstream in(args.task_file);
    MRD_USER_CHECK(in, "cannot read ", args.task_file);
    std::stringstream text;
    text << in.rdbuf();
    tf = measure::parse_task_file(text.str());
  } catch (const std::exception& e) {
    std::cerr << "measurer: " << e.what() << "\n";
    return kUsage;
  }
  client::Client c(common.socket.empty() ? client::default_socket_path() : common.socket);
  measure::Task record_task = tf.task;
  if (record_task.hardware.num_cores == 0)
    record_task.hardware.num_cores = static_cast<int>(c.welcome().cores);

  Progress progress(tf.states.size(), !args.quiet);
  size_t done = 0, errors = 0;
  if (!common.json) std::cout << table_header() << "\n";
  std::string log_error;
  c.measure(tf.task, tf.states, tf.options, [&](uint32_t i, const measure::MeasureResult& r) {
    ++done;
    errors += r.error_no != measure::MeasureErrorNo::NoError;
    progress.finish();
    if (common.json)
      std::cout << result_json(i, r).dump() << "\n";
    else
      std::cout << table_row(i, r) << "\n";
    std::cout.flush();
    if (!args.log_file.empty() && log_error.empty()) {
      try {
        record::append_record(args.log_file, record::make_record(record_task, tf.states[i], r));
      } catch (const std::exception& e) {
        log_error = e.what();
      }
    }
    progress.update(done, errors);
  });
  progress.finish();
  if (!log_error.empty()) {
    std::cerr << "measurer: " << log_error << "\n";
    return kUsage;
  }
  if (!common.json)
    std::cerr << done << " measured, " << errors << " with errors (timing policy "
              << measure::timing_policy_name(c.welcome().policy) << ")\n";
  return errors ? kMeasureErrors : kOk;
}

}  // namespace mrd::cli
