// Transform steps in TVM's record syntax, then lowering: steps_from_json must reject any JSON
// value that is not a step list with a UserError only, write back what it accepts exactly,
// and lowering the accepted steps on a small built-in workload may fail only with a UserError.
#include <nlohmann/json.hpp>

#include "common/dag/compute_dag.h"
#include "common/lower/lower.h"
#include "common/registry/builtin_workloads.h"
#include "common/schedule/transform_steps.h"
#include "common/util/error.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mrd;

namespace {

/// The workload of the reference records in dense_bias_relu.records.json, so that the seed
/// corpus holds real schedules: five stages, with an inlinable bias_add.
const dag::ComputeDAG& workload() {
  static const dag::ComputeDAG dag(registry::builtin::dense_bias_relu(16, 64, 48));
  return dag;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  std::vector<schedule::Step> steps;
  try {
    steps = schedule::steps_from_json(j);
  } catch (const UserError&) {
    return 0;
  }
  std::string text = schedule::steps_to_json(steps).dump();
  fuzz::require(schedule::steps_to_json(schedule::steps_from_json(nlohmann::json::parse(text))).dump() ==
                    text,
                "re-writing accepted steps is not stable");
  try {
    lower::lower(workload(), steps);
  } catch (const UserError&) {
  }
  return 0;
}
