// Lowering a scheduled workload to a PrimFunc: the one place that lists the passes, in order.
#pragma once

#include <vector>

#include "common/dag/compute_dag.h"
#include "common/ir/stmt.h"
#include "common/lower/rewrite_layout.h"
#include "common/schedule/transform_steps.h"

namespace mrd::lower {

/// The code generator a lowered function is for; each has its own tail of passes.
enum class Backend { LLVM, C };

/// Applies `steps` to the DAG's initial schedule and lowers it, up to the passes that depend
/// on the backend: loops keep their vectorize annotation, unrolled loops are marked, not
/// expanded. An invalid step is a UserError "step <i> (<KIND>): ..." (reported by callers as
/// INSTANTIATION_ERROR); so is a read of a tensor that is not a function argument.
ir::PrimFunc lower(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps);

/// The backend's tail of passes over a lowered function. LLVM, as TVM builds `llvm`:
/// vectorize_loop, storage_rewrite, expand_unrolled (every unrolled loop), simplify,
/// common_subexpr_elim, swap_broadcast_cast. C: expand_unrolled up to
/// kMaxUnrolledStoresC stores, lift_guards, hoist_guard_bounds (vectorized loops stay loops:
/// the C printer plans them itself).
ir::PrimFunc finish_lowering(ir::PrimFunc f, Backend backend);

/// rewrite_layout() when asked and the workload has layout-free placeholders, lower(), then
/// finish_lowering().
ir::PrimFunc lower(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps, Backend backend,
                   LayoutRewrite layout_rewrite = LayoutRewrite::None);

}  // namespace mrd::lower
