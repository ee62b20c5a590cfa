// Simplification: constant folding, linear canonicalisation of integer arithmetic (x*1, x+0,
// a+b-a), floordiv/floormod that the loop ranges decide, comparisons the ranges prove,
// selects/ifs with constant conditions, TVM's constant folding of floats (two constants; x + 0,
// x * 1, x / 1 are x; x * 0 and 0 / x are 0), and a float division by a constant as a
// multiplication by its reciprocal (TVM's rewrite simplifier). The statement pass learns each loop
// variable's range from its For and removes ifs whose condition is then constant, and stores of
// what the element holds (a[i] = a[i], TVM's RemoveNoOp). Constants fold with the IR's scalar
// semantics (the interpreters' table): integer results wrap to their type.
#pragma once

#include "common/ir/stmt.h"
#include "common/lower/arith.h"

namespace mrd::lower {

/// Simplifies e knowing the given variable ranges. An integer division or modulo by a
/// constant zero (after folding) is a UserError, as in TVM.
ir::Expr simplify_expr(const ir::Expr& e, const VarRanges& ranges = {});

/// The simplification pass over a lowered function body.
ir::Stmt simplify(const ir::Stmt& s);

}  // namespace mrd::lower
