// Allocation placement as TVM's StorageRewrite does it: every allocation moves to the start of
// its attach scope, the body of the innermost enclosing parallel loop or else the function
// body. A loop nest inside a parallel task then allocates once per task, not once per
// iteration of the serial, unrolled or vectorized loops around the allocation (an allocation's
// contents are undefined on entry, so the move changes no result). An allocation met again
// (several allocations sharing one memory, storage_plan.h) is placed once. Part of the
// storage_rewrite pass.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt hoist_allocations(const ir::Stmt& body);

}  // namespace mrd::lower
