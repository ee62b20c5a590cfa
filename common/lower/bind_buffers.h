// Binding tensors to buffers, by tensor identity (TVM's SchedulePostProcToPrimFunc): the
// function's parameters are the workload's tensors, in order; every other computed stage keeps
// the allocation ScheduleOps placed at its attach point, indexed relative to its region's
// minimum. A read of a tensor that is neither an argument nor computed in the function is a
// UserError naming the tensor (the failure the seed reproduced).
#pragma once

#include <vector>

#include "common/lower/lower_context.h"

namespace mrd::lower {

/// Rewrites stores and reads to BufferStore / BufferLoad; fills `params`.
ir::Stmt bind_buffers(LowerContext& ctx, const ir::Stmt& body, std::vector<ir::Buffer>& params);

}  // namespace mrd::lower
