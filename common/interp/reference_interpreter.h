// The reference interpreter: a direct evaluator of a workload's DAG, independent of
// scheduling and lowering, that every lowering test and the correctness check compare
// against. It evaluates each op in stage order over its whole domain, in row-major order and
// each reduction in the order of its domain (last axis fastest); each op's expressions are
// resolved once (resolved_expr.h) and evaluated at up to 64 points at a time where they are
// plain arithmetic on reads (see ResolvedExpr::eval_f_lanes), with the same results. Float math is
// done in double and rounded to float32 at each stored element of a float32 op (including each
// update of a reduction's accumulator), so results compare with compiled float32 code within
// rounding. Integer math is exact for the type (int32 wraps, floordiv/floormod floor, Div on
// integers truncates, division by zero is an error). if_then_else and select evaluate only
// the chosen branch, && and || short-circuit, so guarded reads are never performed. A read
// outside a tensor is a UserError naming the tensor.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/dag/compute_dag.h"
#include "common/interp/host_tensor.h"

namespace mrd::interp {

/// Evaluates the DAG. `inputs`: one per placeholder among dag.tensors(), in that order.
/// Returns one tensor per compute op among dag.tensors(), in that order. Throws UserError
/// for wrong inputs, a placeholder that is read but is not among dag.tensors(), an
/// out-of-bounds read, a division by zero, a tensor beyond the interpreter's size limit, or,
/// given a budget (seconds > 0), an evaluation still running when the budget has passed.
std::vector<HostTensor> evaluate(const dag::ComputeDAG& dag, const std::vector<HostTensor>& inputs,
                                 double budget_seconds = 0);

/// Deterministic pseudo-random values for a placeholder, uniform in [1, 10) as TVM's random
/// fill: from std::mt19937_64(seed), u = (next >> 11) * 2^-53, value = 1 + 9u (rounded to
/// float32 for float32); integers are 1 + next % 9.
HostTensor make_input(const ir::OperationNode& placeholder, uint64_t seed);

/// The values of make_input one at a time, with no size limit: kernel arguments are filled
/// from it whether or not the interpreter will ever hold the tensor.
class InputValues {
 public:
  InputValues(ir::DType dtype, uint64_t seed) : dtype_(dtype), gen_(seed) {}
  double next();

 private:
  ir::DType dtype_;
  std::mt19937_64 gen_;
};

/// The fill of the tvm-reference check numbers: x[i] = float32(((i * 7919) % 1000) / 1000.0 -
/// 0.5) for row-major index i; integer tensors get ((i * 7919) % 1000) - 500, wrapped to their
/// type.
HostTensor make_reference_input(const ir::OperationNode& placeholder);

/// Largest number of elements the interpreter holds in one tensor.
inline constexpr int64_t kMaxInterpElements = int64_t{1} << 28;

}  // namespace mrd::interp
