// The reference's exact twin: the workload's DAG with every float32 value float64
// (placeholders, computes, constants, casts), the same math without float32's rounding. The
// correctness check asks it only for an output element that misses the float32 reference:
// a long float32 reduction rounds differently in each summation order, and the reference's
// own order (sequential, see reference_interpreter.h) is often the farthest from the exact
// sum (measure/pipeline.h says how the check uses it).
#pragma once

#include <vector>

#include "common/dag/compute_dag.h"
#include "common/interp/host_tensor.h"

namespace mrd::interp {

/// The DAG with float32 replaced by float64 throughout; its tensors are in the same order.
dag::ComputeDAG float64_twin(const dag::ComputeDAG& dag);

/// The twin's inputs: the float32 tensors of `inputs` relabelled float64 (same values).
std::vector<HostTensor> float64_inputs(std::vector<HostTensor> inputs);

}  // namespace mrd::interp
