// The soak's inputs: a seeded, reproducible list of measure requests that mixes good
// candidates (built-in workloads with real schedules, repeated so that both fresh builds and
// build-cache hits happen), candidates the worker must refuse (an unknown workload, a schedule
// naming a stage that does not exist) and every fault workload. Each input carries the error
// code it must get, known by construction; some requests are marked to be abandoned by their
// client part-way through the result stream. Every fault kind is in the plan at least once
// (when there are inputs enough).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/measure/measure_types.h"
#include "common/measure/task.h"

namespace mrd::soak {

/// Every fault workload kind, as `fault.<kind>`.
const std::vector<std::string>& fault_kinds();

struct PlannedRequest {
  std::string label;  ///< what the request measures, for explanations
  measure::Task task;
  std::vector<std::string> states;
  std::vector<measure::MeasureErrorNo> expected;  ///< one per state
  measure::MeasureOptions options;
  /// The client closes its connection after this many results (0: right after sending);
  /// `kNeverCut` when the request is read to its end.
  size_t cut_after;
  static constexpr size_t kNeverCut = static_cast<size_t>(-1);
};

struct PlanConfig {
  size_t inputs = 400;  ///< total number of states over all requests
  uint64_t seed = 1;
  double disconnect_rate = 0.1;  ///< probability that a request is abandoned part-way
  /// true: the daemon runs with --test-faults and fault workloads really fault; false: each
  /// fault input must be refused with INSTANTIATION_ERROR.
  bool faults_enabled = true;
};

std::vector<PlannedRequest> plan_requests(const PlanConfig& config);

}  // namespace mrd::soak
