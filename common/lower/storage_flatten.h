// Storage flattening: every BufferLoad / Store gets one row-major index over its buffer's
// shape, as TVM's StorageFlatten.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt storage_flatten(const ir::Stmt& body);

}  // namespace mrd::lower
