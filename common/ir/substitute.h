// Replacing variables by expressions, in expressions and statements (simultaneously: a
// replacement is not itself searched for variables). Shared by the schedule and lowering.
#pragma once

#include <unordered_map>

#include "common/ir/expr.h"
#include "common/ir/stmt.h"

namespace mrd::ir {

using VarMap = std::unordered_map<const VarNode*, Expr>;

Expr substitute(const Expr& e, const VarMap& vmap);
Stmt substitute(const Stmt& s, const VarMap& vmap);

}  // namespace mrd::ir
