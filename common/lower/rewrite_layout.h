// TVM's ComputeDAG::RewriteLayout under layout_rewrite_option 1 (INSERT_TRANSFORM_STAGE), what
// TVM v0.14 does for every `llvm` record, and 2 (REWRITE_FOR_PRE_TRANSFORMED), what TVM's
// Relay integration does for a network's tasks: a layout-free placeholder of a stage (dense's weight,
// batch_matmul's Y) gets the layout of that stage's loop nest after the steps. The new shape
// lists, in loop order (the loops of the stage it is computed at first, up to the attach
// point), the extent of every iterator that derives from an axis indexing the placeholder; a
// stage `auto_scheduler_layout_transform` computes that layout from the placeholder, inside
// the timed function, and the stage reads it with floordiv/floormod indices. The steps follow
// the inserted stage (stage ids from the consumer's on shift by one) and the new stage gets
// TVM's schedule: its outer 3 (5+ dims) or 2 (3+ dims) loops fused, and the outer loop parallel.
// Under option 2 there is no transform stage: the placeholder itself takes the new shape (the
// network's weights are re-laid out once, before the network runs), the stage reads it as it
// would read the transform stage, and the steps stay as they are.
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

/// A placeholder that option 2 re-laid out: element `ax` of the new layout (shape `shape`,
/// row-major) is element sum(ax[i] * source_strides[i]) of the original (flat, row-major).
struct PreTransformedInput {
  size_t tensor_index = 0;  ///< its position among the workload's tensors
  std::vector<int64_t> shape;
  std::vector<int64_t> source_strides;
};

struct RewrittenLayout {
  std::vector<ir::Tensor> tensors;  ///< the workload's tensors, readers rebuilt
  std::vector<schedule::Step> steps;
  std::vector<PreTransformedInput> pretransformed;  ///< option 2 only
};

/// TVM's LayoutRewriteOption: 0 no rewrite, 1 insert a layout transform stage, TVM's
/// default for llvm targets, 2 the layout-free placeholders are arguments in the new layout
/// already (TVM's Relay integration: the network's weights are re-laid out before it runs).
enum class LayoutRewrite { None = 0, InsertTransformStage = 1, RewriteForPreTransformed = 2 };

/// The rewritten workload, or nullopt for LayoutRewrite::None, when there are no steps (as in
/// TVM) or when no stage has a layout-free placeholder to rewrite.
std::optional<RewrittenLayout> rewrite_layout(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps,
                                              LayoutRewrite option = LayoutRewrite::InsertTransformStage);

}  // namespace mrd::lower
