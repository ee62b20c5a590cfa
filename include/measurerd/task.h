// A measurement task (auto_scheduler's SearchTask): the workload, the target and the hardware
// parameters. A task is made from a built-in workload's name and arguments or read from a task
// file (proto-docs/task-format.md); its compute definition stays inside the library.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "measurerd/types.h"

namespace measurerd {

/// TVM's HardwareParams (CPU part). num_cores 0: every core the worker may use.
struct HardwareParams {
  int num_cores = 0;
  int vector_unit_bytes = 64;
  int cache_line_bytes = 64;
};

/// Thrown for a task, task file, workload or record that is not valid; what() says why.
class InvalidInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An immutable task; copies share it.
class Task {
 public:
  /// A built-in function workload written as on the command line, `NAME:ARG,ARG,...`
  /// (`measurer workloads` lists them), e.g. "matmul:64,64,64,float32". `target` is a TVM
  /// target string: "llvm [-mcpu=CPU] [-mattr=...]" or "c". Throws InvalidInput.
  static Task builtin(const std::string& spec, const std::string& target = "llvm -keys=cpu",
                      const HardwareParams& hardware = {});

  /// TVM's workload key, e.g. `["matmul", 64, 64, 64, "float32"]`.
  const std::string& workload_key() const;
  const std::string& target() const;
  const HardwareParams& hardware() const;
  /// Floating-point operations of one call; 0 when not known.
  double flop_count() const;

  /// The library's own representation; incomplete here, not part of the API.
  struct Impl;
  explicit Task(std::shared_ptr<const Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

/// A task file: a task, its measure options and the states to measure.
struct TaskFile {
  Task task;
  MeasureOptions options;
  /// Each state: the JSON array text of its transform steps, in TVM's record syntax.
  std::vector<std::string> states;
};

/// Parses a task file's JSON text. Throws InvalidInput naming the field that is wrong.
TaskFile parse_task_file(const std::string& json_text);
/// Reads and parses the task file at `path`. Throws InvalidInput.
TaskFile read_task_file(const std::string& path);

}  // namespace measurerd
