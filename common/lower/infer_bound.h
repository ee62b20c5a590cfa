// InferBound, as TVM's bound.cc: stages in reverse order; roots of root stages (and every
// reduction axis) get their full domain; the roots of a stage computed at a loop of another
// get the union, over its consumers, of the indices the consumers read, with the consumer
// loops below the attach point relaxed to their full range and those at or above it fixed.
// Ranges then pass down through splits (inner = min(factor, extent), outer = ceildiv) and
// fuses.
#pragma once

#include "common/lower/lower_context.h"

namespace mrd::lower {

/// Fills ctx.ranges and ctx.loop_ranges. UserError when a stage is computed at a loop that
/// none of its consumers runs inside (naming the compute_at step).
void infer_bound(LowerContext& ctx);

}  // namespace mrd::lower
