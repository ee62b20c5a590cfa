// Tasks and task files of the public API.

#include "client/api/convert.h"
#include "client/lib/workload_spec.h"
#include "common/dag/flop_count.h"
#include "common/measure/task_file.h"
#include "common/registry/registry.h"

namespace measurerd {

Task make_task(mrd::measure::Task task) {
  auto impl = std::make_shared<Task::Impl>();
  impl->workload_key = as_public([&] { return mrd::registry::workload_key(task.workload); });
  impl->hardware = from_internal(task.hardware);
  try {
    impl->flop_count = std::max(0.0, mrd::dag::flop_count(mrd::cli::workload_dag(task.workload)));
  } catch (const std::exception&) {
    impl->flop_count = 0;  // the daemon still measures it and reports why it cannot be built
  }
  impl->task = std::move(task);
  return Task(std::move(impl));
}

Task::Task(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Task Task::builtin(const std::string& spec, const std::string& target,
                   const HardwareParams& hardware) {
  mrd::measure::Task t;
  t.workload = as_public([&] { return mrd::cli::parse_workload_spec(spec); });
  // An unknown name or bad arguments are the caller's mistake: say so here, not per state.
  as_public([&] { return mrd::cli::workload_dag(t.workload); });
  t.target = target;
  t.hardware = to_internal(hardware);
  return make_task(std::move(t));
}

const std::string& Task::workload_key() const {
  return impl_->workload_key;
}
const std::string& Task::target() const {
  return impl_->task.target;
}
const HardwareParams& Task::hardware() const {
  return impl_->hardware;
}
double Task::flop_count() const {
  return impl_->flop_count;
}

TaskFile parse_task_file(const std::string& json_text) {
  auto tf = as_public([&] { return mrd::measure::parse_task_file(json_text); });
  return TaskFile{make_task(std::move(tf.task)), from_internal(tf.options), std::move(tf.states)};
}

TaskFile read_task_file(const std::string& path) {
  std::string text = as_public([&] { return mrd::measure::read_task_file_text(path); });
  try {
    return parse_task_file(text);
  } catch (const InvalidInput& e) {
    throw InvalidInput(path + ": " + e.what());
  }
}

}  // namespace measurerd
