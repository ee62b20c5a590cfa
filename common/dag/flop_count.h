// The floating-point operation count of a workload, exactly as TVM's FlopEstimator: summed
// over compute ops, (number of output elements) x (operations per element of the body).
#pragma once

#include "common/dag/compute_dag.h"

namespace mrd::dag {

/// TVM's FlopEstimator. Per element: a binary node (+ - * / floordiv floormod min max,
/// comparisons, && ||) counts 1 unless neither operand's type class (int / uint-bool /
/// float) is the op's output type class, so index arithmetic does not count; `!` counts 1 when
/// its own type class is the output's; a reduction counts product(reduce extents) x
/// (combiner + source); select counts condition + the larger branch; calls count only their
/// arguments; casts count their value; reads, variables and immediates count 0 (the indices
/// of a read are not visited). matmul N x L x M gives 2 N L M. Returns -1 when the DAG holds
/// a node TVM cannot estimate (a buffer load).
double flop_count(const ComputeDAG& dag);

}  // namespace mrd::dag
