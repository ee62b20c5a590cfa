// Lowering a scheduled workload to a PrimFunc: the one place that lists the passes, in order.
#pragma once

#include <vector>

#include "common/dag/compute_dag.h"
#include "common/ir/stmt.h"
#include "common/schedule/transform_steps.h"

namespace mrd::lower {

/// Applies `steps` to the DAG's initial schedule and lowers it. An invalid step is a UserError
/// "step <i> (<KIND>): ..." (reported by callers as INSTANTIATION_ERROR); so is a read of a
/// tensor that is not a function argument.
ir::PrimFunc lower(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps);

}  // namespace mrd::lower
