// Tuning records in TVM's auto_scheduler log format (JSON lines, "v0.6"), written and read so
// that logs move between TVM and measurerd in both directions:
//   {"i": [[workload_key, target, [num_cores, vector_unit_bytes, cache_line_bytes, 0, 0, 0, 0, 0],
//           target_host, layout_rewrite_option, [task_input_names]], [[], steps]],
//    "r": [[costs], error_no, all_cost, timestamp], "v": "v0.6"}
// proto-docs/records.md describes every field.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "common/measure/measure_types.h"
#include "common/measure/task.h"

namespace mrd::record {

struct Record {
  std::string workload_key;
  std::string target;
  measure::HardwareParams hardware;
  std::string target_host;
  int layout_rewrite_option = 1;
  std::vector<std::string> task_input_names;
  std::string steps;  ///< JSON array text of the transform steps
  /// costs, error_no, all_cost and timestamp are what a record holds; the rest stays default.
  measure::MeasureResult result;
  std::string version = "v0.6";
};

/// TVM's cost for a failed measurement (auto_scheduler's MAX_FLOAT).
inline constexpr double kErrorCost = 1e10;

/// One line, without the newline, separators as TVM writes them (", " and ": ").
std::string to_json_line(const Record& r);
/// Parses one line. Throws UserError naming what is wrong.
Record from_json_line(std::string_view line);

/// Reads every non-blank line; a bad line throws UserError with its line number.
std::vector<Record> read_records(std::istream& in);
/// Appends one line (and a newline) to the file at `path`, creating it.
void append_record(const std::string& path, const Record& r);

/// The record of measuring `steps` of `task` with result `result`.
Record make_record(const measure::Task& task, const std::string& steps,
                   const measure::MeasureResult& result);
/// The task a record measured: its workload key must be a function workload's
/// (`["name", args...]`); a tensor workload's key cannot be rebuilt. Throws UserError.
measure::Task task_of(const Record& r);

}  // namespace mrd::record
