// Task files: a task, measure options and the states to measure, as JSON (described with
// examples in the project's task-format document). Unknown fields are errors, so a typo is
// never silently ignored.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/measure/measure_types.h"
#include "common/measure/task.h"

namespace mrd::measure {

struct TaskFile {
  Task task;
  MeasureOptions options;
  /// Each state: the JSON array text of its transform steps, in TVM's record syntax.
  std::vector<std::string> states;
};

/// Most states one task file may hold.
inline constexpr size_t kMaxTaskFileStates = 100000;

/// Most bytes one task file may hold.
inline constexpr size_t kMaxTaskFileBytes = 64 << 20;

/// Throws UserError naming the field and what was expected.
TaskFile parse_task_file(std::string_view json_text);

/// The text of the task file at `path`, read in chunks up to kMaxTaskFileBytes (so a small file
/// costs what it holds). Throws UserError when it cannot be opened or is larger.
std::string read_task_file_text(const std::string& path);

}  // namespace mrd::measure
