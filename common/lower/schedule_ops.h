// ScheduleOps: one loop nest per computed stage, as TVM's MakeLoopNest / MakeComputeStmt.
// Leaf loops run from 0; a split index is outer * extent(inner) + inner, a fused one is
// recovered by floordiv / floormod; extent-1 loops become the constant 0. Roots that may run
// past their range (non-divisible splits) or past the op's domain (attached stages) get a
// guard `if (likely(...))` unless the loop ranges prove it. A reduction becomes an init
// (the combiner's identity, in the loops before the first reduction loop plus re-created
// spatial loops) and an update `C = combiner(C, source)`. Stages computed at a loop are
// injected at the start of that loop's body, inside an Allocate of their buffer.
//
// Output: Stores to ctx.stage_buffers (absolute indices, not yet bound), TensorReads for
// every read. UserError for nested parallel loops.
#pragma once

#include "common/lower/lower_context.h"

namespace mrd::lower {

ir::Stmt schedule_ops(LowerContext& ctx);

}  // namespace mrd::lower
