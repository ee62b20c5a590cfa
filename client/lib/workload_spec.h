// Naming a workload as the measurer command line and the client library do:
// `matmul:512,512,512,float32` is the built-in function workload `matmul` with those arguments
// (integers, decimals and strings as written).
#pragma once

#include <string>

#include "common/dag/compute_dag.h"
#include "common/registry/workload.h"

namespace mrd::cli {

/// Parses `NAME:ARG,ARG,...` (or just `NAME`). Throws UserError on an empty name or argument.
registry::FunctionWorkload parse_workload_spec(const std::string& spec);

/// The DAG of a workload, rebuilt through the global registry. Throws UserError.
dag::ComputeDAG workload_dag(const registry::Workload& w);

}  // namespace mrd::cli
