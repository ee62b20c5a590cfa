// A candidate schedule of the tuner: a transform-step list over the task's DAG, in TVM's record
// form, and its identity for deduplication (the compact JSON text of the steps).
#pragma once

#include <string>
#include <vector>

#include "common/schedule/transform_steps.h"

namespace mrd::tune {

struct Candidate {
  std::vector<schedule::Step> steps;
};

/// The compact JSON text of the steps: two candidates are the same state iff their keys match.
inline std::string candidate_key(const std::vector<schedule::Step>& steps) {
  return schedule::steps_to_json(steps).dump();
}

}  // namespace mrd::tune
