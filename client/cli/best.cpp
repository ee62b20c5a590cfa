// measurer best LOG: the best record of each workload in a record log, optionally exported as
// a kernel a program can call (--export DIR).
#include <cstdio>
#include <iostream>

#include "client/cli/commands.h"
#include "client/cli/kernel_export.h"
#include "client/cli/log_summary.h"
#include "client/cli/tvm_json.h"
#include "common/measure/result_json.h"

namespace mrd::cli {
namespace {

std::string cost_text(const WorkloadLog& w, double cost) {
  char line[160];
  if (w.flops > 0)
    std::snprintf(line, sizeof line, "%.4f ms, %.2f GFLOP/s", cost * 1e3, w.flops / cost / 1e9);
  else
    std::snprintf(line, sizeof line, "%.4f ms (FLOPs unknown for this key)", cost * 1e3);
  return line;
}

}  // namespace

int run_best(const Common& common, const BestArgs& args) {
  std::vector<WorkloadLog> logs;
  try {
    logs = read_log_by_workload(args.log_file);
  } catch (const std::exception& e) {
    std::cerr << "measurer best: " << args.log_file << ": " << e.what() << "\n";
    return kUsage;
  }
  bool all_found = true;
  bool exported_all = true;
  for (const auto& w : logs) {
    int b = best_record(w);
    if (b < 0) {
      all_found = false;
      std::cerr << "measurer best: " << w.key << ": no record without error among "
                << w.records.size() << "\n";
      continue;
    }
    const auto& r = w.records[b];
    double cost = record_cost(r);
    std::string exported;
    if (!args.export_dir.empty()) {
      try {
        exported = export_kernel(r, args.export_dir,
                                 w.key + " on " + r.target + ": the best of " +
                                     std::to_string(w.records.size()) + " records in " +
                                     args.log_file + ", " + cost_text(w, cost))
                       .dir;
      } catch (const std::exception& e) {
        exported_all = false;
        std::cerr << "measurer best: " << w.key << ": cannot export: " << e.what() << "\n";
      }
    }
    if (common.json) {
      nlohmann::json j;
      j["workload_key"] = w.key;
      j["target"] = r.target;
      j["num_cores"] = r.hardware.num_cores;
      j["records"] = w.records.size();
      j["best_index"] = b;
      j["mean_cost"] = cost;
      double g = measure::gflops(r.result, w.flops);
      j["gflops"] = g > 0 ? nlohmann::json(g) : nlohmann::json(nullptr);
      j["result"] = measure::result_json(r.result, w.flops);
      j["steps"] = nlohmann::json::parse(r.steps);
      j["record"] = record::to_json_line(r);
      if (!exported.empty()) j["exported"] = exported;
      std::cout << j.dump() << "\n";
      continue;
    }
    std::cout << "workload  " << w.key << "\n"
              << "target    " << r.target << " (num_cores " << r.hardware.num_cores << ")\n"
              << "records   " << w.records.size() << ", best is #" << b + 1 << "\n"
              << "best      " << cost_text(w, cost) << "\n"
              << "steps     " << tvm_json(nlohmann::json::parse(r.steps)) << "\n";
    if (!exported.empty()) std::cout << "exported  " << exported << "\n";
    std::cout << "\n";
  }
  if (logs.empty()) std::cerr << "measurer best: " << args.log_file << " holds no records\n";
  if (!exported_all) return kUsage;
  return all_found && !logs.empty() ? kOk : kMeasureErrors;
}

}  // namespace mrd::cli
