// TVM's StorageRewrite: allocations share memory as storage_plan.h plans it (every access
// to an allocation that shares goes to the buffer holding the memory), and every allocation
// moves to the start of its attach scope (hoist_allocations.h).
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt storage_rewrite(const ir::Stmt& body);

}  // namespace mrd::lower
