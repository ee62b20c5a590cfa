// TVM's CommonSubexprElimTIR (the LLVM pipeline runs it last, as TVM's lowering does before
// codegen). At each statement, the computations it does are counted as TVM counts them: an
// expression that is eligible (arithmetic, comparisons, casts and selects; not a constant, a
// variable, a ramp or a broadcast; no read and no call anywhere inside) counts as itself, not
// as its parts; a loop counts only what two of its min, extent and body share, an `if` what two
// of its condition and branches share, so a loop body and a branch are statements of their
// own. Largest first (equal sizes in the order of their printed text, as TVM sorts them), a
// computation seen twice or more whose variables are all bound above the statement becomes a
// `cse_var` let around it, replacing every occurrence below; one that is not is tried again as
// its direct eligible parts (each counted once more), queued behind the computations of their
// size. The result then gets the same treatment statement by statement, down to the innermost
// loop bodies, so a value shared by a body is computed at its top, before anything it reads.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt common_subexpr_elim(const ir::Stmt& body);

}  // namespace mrd::lower
