// measurer best LOG: the best record of each workload in a record log.
#include <cstdio>
#include <iostream>

#include "client/cli/commands.h"
#include "client/cli/log_summary.h"
#include "client/cli/tvm_json.h"

namespace mrd::cli {

int run_best(const Common& common, const BestArgs& args) {
  std::vector<WorkloadLog> logs;
  try {
    logs = read_log_by_workload(args.log_file);
  } catch (const std::exception& e) {
    std::cerr << "measurer best: " << args.log_file << ": " << e.what() << "\n";
    return kUsage;
  }
  bool all_found = true;
  for (const auto& w : logs) {
    int b = best_record(w);
    if (b < 0) {
      all_found = false;
      std::cerr << "measurer best: " << w.key << ": no record without error among "
                << w.records.size() << "\n";
      continue;
    }
    const auto& r = w.records[b];
    if (common.json) {
      std::cout << record::to_json_line(r) << "\n";
      continue;
    }
    double cost = record_cost(r);
    std::cout << "workload  " << w.key << "\n"
              << "target    " << r.target << " (num_cores " << r.hardware.num_cores << ")\n"
              << "records   " << w.records.size() << ", best is #" << b + 1 << "\n";
    char line[160];
    if (w.flops > 0)
      std::snprintf(line, sizeof line, "best      %.4f ms, %.2f GFLOP/s\n", cost * 1e3,
                    w.flops / cost / 1e9);
    else
      std::snprintf(line, sizeof line, "best      %.4f ms (FLOPs unknown for this key)\n",
                    cost * 1e3);
    std::cout << line << "steps     " << tvm_json(nlohmann::json::parse(r.steps)) << "\n\n";
  }
  if (logs.empty()) std::cerr << "measurer best: " << args.log_file << " holds no records\n";
  return all_found && !logs.empty() ? kOk : kMeasureErrors;
}

}  // namespace mrd::cli
