// measurer replay LOG: measure each record's state again and compare with the logged cost.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "client/cli/commands.h"
#include "client/cli/output.h"
#include "client/lib/client.h"
#include "client/lib/workload_spec.h"
#include "common/dag/flop_count.h"
#include "common/record/record.h"
#include "common/util/error.h"

namespace mrd::cli {
namespace {

bool same_task(const record::Record& a, const record::Record& b) {
  return a.workload_key == b.workload_key && a.target == b.target &&
         a.hardware.num_cores == b.hardware.num_cores &&
         a.hardware.vector_unit_bytes == b.hardware.vector_unit_bytes &&
         a.hardware.cache_line_bytes == b.hardware.cache_line_bytes;
}

}  // namespace

int run_replay(const Common& common, const ReplayArgs& args) {
  std::vector<record::Record> records;
  try {
    std::ifstream in(args.log_file);
    MRD_USER_CHECK(in, "cannot read ", args.log_file);
    records = record::read_records(in);
  } catch (const std::exception& e) {
    std::cerr << "measurer: " << args.log_file << ": " << e.what() << "\n";
    return kUsage;
  }
  client::Client c(common.socket.empty() ? client::default_socket_path() : common.socket);
  Progress progress(records.size(), !args.quiet);
  size_t done = 0, errors = 0;
  if (!common.json)
    std::printf("%5s  %-19s  %12s  %12s  %8s  %s\n", "#", "result", "old ms", "new ms", "new/old",
                "workload");
  // Consecutive records of one task go as one request.
  for (size_t start = 0; start < records.size();) {
    size_t end = start + 1;
    while (end < records.size() && same_task(records[start], records[end])) ++end;
    std::vector<std::string> states;
    for (size_t i = start; i < end; ++i) states.push_back(records[i].steps);
    measure::Task task;
    bool task_ok = true;
    try {
      task = record::task_of(records[start]);
    } catch (const std::exception& e) {
      task_ok = false;
      for (size_t i = start; i < end; ++i) {
        ++done;
        ++errors;
        progress.clear();
        if (common.json) {
          measure::MeasureResult r;
          r.error_no = measure::MeasureErrorNo::InstantiationError;
          r.error_msg = e.what();
          auto j = measure::indexed_result_json(i, r, 0);
          j["workload_key"] = records[i].workload_key;
          const auto& old = records[i].result;
          j["old_cost"] = old.error_no == measure::MeasureErrorNo::NoError ? mean_cost(old) : 0;
          j["new_cost"] = 0.0;
          std::cout << j.dump() << "\n";
        } else {
          std::printf("%5zu  %-19s  %s\n", i, "INSTANTIATION_ERROR", e.what());
        }
      }
    }
    if (task_ok) {
      double flops = 0;
      try {
        flops = std::max(0.0, dag::flop_count(workload_dag(task.workload)));
      } catch (const std::exception&) {
        // GFLOP/s unknown: the daemon still measures it
      }
      c.measure(
          task, states, measure::MeasureOptions{},
          [&](uint32_t k, const measure::MeasureResult& r) {
            size_t i = start + k;
            ++done;
            errors += r.error_no != measure::MeasureErrorNo::NoError;
            const auto& old = records[i].result;
            double old_cost = old.error_no == measure::MeasureErrorNo::NoError ? mean_cost(old) : 0;
            double new_cost = r.error_no == measure::MeasureErrorNo::NoError ? mean_cost(r) : 0;
            progress.clear();
            if (common.json) {
              auto j = measure::indexed_result_json(i, r, flops);
              j["workload_key"] = records[i].workload_key;
              j["old_cost"] = old_cost;
              j["new_cost"] = new_cost;
              std::cout << j.dump() << "\n";
            } else {
              char ratio[32] = "-";
              if (old_cost > 0 && new_cost > 0)
                std::snprintf(ratio, sizeof ratio, "%.3f", new_cost / old_cost);
              std::printf("%5zu  %-19s  %12.4f  %12.4f  %8s  %s\n", i,
                          std::string(measure::error_name(r.error_no)).c_str(), old_cost * 1e3,
                          new_cost * 1e3, ratio, records[i].workload_key.c_str());
            }
            std::fflush(stdout);
            progress.update(done, errors);
          });
    }
    start = end;
  }
  progress.finish();
  return errors ? kMeasureErrors : kOk;
}

}  // namespace mrd::cli
