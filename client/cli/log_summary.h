// What `measurer best` and `measurer plot` read from a record log: its records grouped by
// workload key in order of first appearance, and each workload's FLOP count when its key can
// be rebuilt through the registry.
#pragma once

#include <string>
#include <vector>

#include "common/record/record.h"

namespace mrd::cli {

struct WorkloadLog {
  std::string key;
  std::vector<record::Record> records;  ///< in log order
  /// Floating-point operations of the workload; 0 when its key cannot be rebuilt (a tensor
  /// workload, an unknown name) or TVM could not count them.
  double flops = 0;
};

/// Reads the log at `path`. Throws UserError for an unreadable file or a bad line.
std::vector<WorkloadLog> read_log_by_workload(const std::string& path);

/// The index of the record with the lowest mean cost among those with error_no 0, or -1. A
/// state logged more than once (the steps text alike; `measurer tune` measures its best states
/// again at the end) is judged by its latest record without error alone.
int best_record(const WorkloadLog& w);

/// Mean of the costs in seconds.
double record_cost(const record::Record& r);

}  // namespace mrd::cli
