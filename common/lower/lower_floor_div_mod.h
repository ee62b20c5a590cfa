// TVM's LowerIntrin lowering of integer floordiv and floormod (lower_intrin.cc) to what the
// machine divides with, in TVM's forms, so that the LLVM backend prints the instructions TVM's
// build emits. Each rule runs on an operation whose operands are already lowered, knowing the
// ranges of the enclosing loop and let variables (ranges over every lane, lane_bound):
//   - by a scalar constant power of two 2^k: a >> k, and a & (2^k - 1);
//   - with a divisor that is not negative and a dividend that is not negative (or unsigned):
//     truncdiv(a, b), truncmod(a, b);
//   - with a dividend whose least value m < 0 is known: with c = truncdiv(b - 1 - m, b),
//     truncdiv(a + b*c, b) - c and truncmod(a + b*c, b) (a + b*c simplified);
//   - otherwise, for a scalar int32 or int64: rdiv + (rmod >> bits-1) and
//     rmod + (b & (rmod >> bits-1)); other types: select(rmod >= 0, rdiv, rdiv - 1) and
//     select(rmod >= 0, rmod, rmod + b), where rdiv, rmod are truncdiv(a, b), truncmod(a, b);
//   - a divisor of unknown sign: selects on the signs of b and rmod.
// Also TVM's two rewrites around them: max(floordiv(x, y), c) with c >= 0 and y >= 0 becomes
// max(truncdiv(x, y), c), and floormod(x, y) == 0 (or != 0) becomes truncmod(x, y) == 0 (!= 0).
//
// Pre: a lowered LLVM body, after common_subexpr_elim (where TVM's build runs LowerIntrin).
// Post: no FloorDiv or FloorMod remains; every value is unchanged.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt lower_floor_div_mod(const ir::Stmt& s);

}  // namespace mrd::lower
