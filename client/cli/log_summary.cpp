#include "client/cli/log_summary.h"

#include <fstream>
#include <map>
#include <numeric>
#include <unordered_map>

#include "client/lib/workload_spec.h"
#include "common/dag/flop_count.h"
#include "common/util/error.h"

namespace mrd::cli {

std::vector<WorkloadLog> read_log_by_workload(const std::string& path) {
  std::ifstream in(path);
  MRD_USER_CHECK(in, "cannot read ", path);
  std::vector<WorkloadLog> out;
  std::map<std::string, size_t> index;
  for (auto& r : record::read_records(in)) {
    auto it = index.find(r.workload_key);
    if (it == index.end()) {
      it = index.emplace(r.workload_key, out.size()).first;
      out.push_back({r.workload_key, {}, 0});
      try {
        double f = dag::flop_count(workload_dag(record::task_of(r).workload));
        out.back().flops = f > 0 ? f : 0;
      } catch (const std::exception&) {
        // not rebuildable here: costs only
      }
    }
    out[it->second].records.push_back(std::move(r));
  }
  return out;
}

double record_cost(const record::Record& r) {
  const auto& c = r.result.costs;
  if (c.empty()) return 0;
  return std::accumulate(c.begin(), c.end(), 0.0) / c.size();
}

int best_record(const WorkloadLog& w) {
  // steps text -> its last record without error (a failed re-measure says nothing of its cost)
  std::unordered_map<std::string, size_t> latest;
  for (size_t i = 0; i < w.records.size(); ++i) {
    const auto& r = w.records[i];
    if (r.result.error_no == measure::MeasureErrorNo::NoError && !r.result.costs.empty()) latest[r.steps] = i;
  }
  int best = -1;
  for (size_t i = 0; i < w.records.size(); ++i) {
    const auto& r = w.records[i];
    if (r.result.error_no != measure::MeasureErrorNo::NoError || r.result.costs.empty()) continue;
    if (latest.at(r.steps) != i) continue;  // measured again later
    if (best < 0 || record_cost(r) < record_cost(w.records[best])) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace mrd::cli
