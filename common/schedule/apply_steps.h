// Replays a transform-step list on the initial schedule of a DAG, as auto_scheduler's
// ComputeDAG::ApplySteps does. An invalid step is a UserError "step <i> (<KIND>): <why>".
#pragma once

#include <vector>

#include "common/dag/compute_dag.h"
#include "common/schedule/te_schedule.h"
#include "common/schedule/transform_steps.h"

namespace mrd::schedule {

Schedule apply_steps(const dag::ComputeDAG& dag, const std::vector<Step>& steps);

}  // namespace mrd::schedule
