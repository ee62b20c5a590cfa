// The variables and buffers a statement uses that it does not define: what an outlined body
// (a parallel loop's closure) must receive from the function around it.
#pragma once

#include <vector>

#include "common/ir/stmt.h"

namespace mrd::codegen {

/// In order of first use.
struct FreeSymbols {
  std::vector<const ir::VarNode*> vars;
  std::vector<const ir::BufferNode*> buffers;
};

/// The free symbols of `body`, the body of a loop over `loop_var` (bound inside).
FreeSymbols free_symbols(const ir::Stmt& body, const ir::VarNode* loop_var);

}  // namespace mrd::codegen
