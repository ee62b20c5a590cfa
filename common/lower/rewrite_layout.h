// TVM's ComputeDAG::RewriteLayout under layout_rewrite_option 1 (INSERT_TRANSFORM_STAGE), what
// TVM v0.14 does for every `llvm` record: a layout-free placeholder of a stage (dense's weight,
// batch_matmul's Y) gets the layout of that stage's loop nest after the steps. The new shape
// lists, in loop order (the loops of the stage it is computed at first, up to the attach
// point), the extent of every iterator that derives from an axis indexing the placeholder; a
// stage `auto_scheduler_layout_transform` computes that layout from the placeholder, inside
// the timed function, and the stage reads it with floordiv/floormod indices. The steps follow
// the inserted stage (stage ids from the consumer's on shift by one) and the new stage gets
// TVM's schedule: its outer 3 (5+ dims) or 2 (3+ dims) loops fused, and the outer loop parallel.
//
// As in TVM, each placeholder index must be an axis variable (or 0). Unlike TVM, a layout
// whose extents do not multiply back to the placeholder's shape (a non-divisible split) is
// left as it is rather than read out of bounds.
#pragma once

#include <optional>
#include <vector>

#include "common/dag/compute_dag.h"
#include "common/schedule/transform_steps.h"

namespace mrd::lower {

struct RewrittenLayout {
  std::vector<ir::Tensor> tensors;  ///< the workload's tensors, readers rebuilt
  std::vector<schedule::Step> steps;
};

/// The rewritten workload, or nullopt when there are no steps (as in TVM) or no stage has a
/// layout-free placeholder to rewrite.
std::optional<RewrittenLayout> rewrite_layout(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps);

}  // namespace mrd::lower
