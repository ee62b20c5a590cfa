// The part of TVM's CommonSubexprElimTIR that the LLVM backend's own value sharing cannot
// reach. The backend evaluates if_then_else (and a select that guards a read) in branches, as
// TVM's codegen does, and shares a pure value only within one branch. TVM's pass runs first
// and makes a computation that occurs twice or more in a statement a `cse_var` bound before
// it, branches or not: the address of a padded read, shared by the nine reads of a 3x3 window,
// is computed once per iteration instead of once per branch. This pass does the same for the
// computations that occur under such a branch: each loop body (and the function body) gets a
// let per pure computation (no read, no call) that occurs under a branch and at least twice in
// that body, larger ones first, as TVM's pass orders them. Nested loops are bodies of their own.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt share_guarded_subexprs(const ir::Stmt& body);

}  // namespace mrd::lower
