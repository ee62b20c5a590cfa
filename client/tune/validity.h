// Whether a candidate may be measured: its steps apply and it lowers. A candidate that fails
// here would only come back as an INSTANTIATION_ERROR, so the tuner never sends it.
#pragma once

#include <vector>

#include "common/dag/compute_dag.h"
#include "common/schedule/transform_steps.h"

namespace mrd::tune {

/// True when lower::lower accepts the steps (any error makes the candidate invalid).
bool lowers(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps);

}  // namespace mrd::tune
