// Tuning records in TVM's auto_scheduler log format (JSON lines, "v0.6"), read and written so
// that logs move between TVM and measurerd in both directions (proto-docs/records.md).
#pragma once

#include <string>
#include <vector>

#include "measurerd/task.h"
#include "measurerd/types.h"

namespace measurerd {

/// One record: what was measured and what it cost. Only costs, error_no, all_cost and
/// timestamp of `result` are held by a record; the rest stays default.
struct Record {
  std::string workload_key;
  std::string target;
  HardwareParams hardware;
  int layout_rewrite_option = 1;  ///< TVM's LayoutRewriteOption of the task
  std::string steps;              ///< JSON array text of the transform steps
  MeasureResult result;
};

/// The record of measuring `steps` of `task` with `result`.
Record make_record(const Task& task, const std::string& steps, const MeasureResult& result);

/// One log line (without the newline), as TVM writes it.
std::string to_record_line(const Record& r);
/// Parses one log line. Throws InvalidInput naming what is wrong.
Record parse_record_line(const std::string& line);

/// Every record of the log at `path`. Throws InvalidInput (with the line number).
std::vector<Record> read_record_log(const std::string& path);
/// Appends one line to the log at `path`, creating it. Throws InvalidInput when it cannot.
void append_record(const std::string& path, const Record& r);

}  // namespace measurerd
