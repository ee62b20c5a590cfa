// Guard-to-bound hoisting for the C backend: a serial loop over v whose whole body is a guard
// `if (c) S` (no else) takes each conjunct of c of the form `+-v + rest` compared with 0 (<,
// <=, >, >=; rest invariant in the loop and free of loads, at most four int32 terms with
// factors below 2^30) as a bound instead: the loop runs over [max(min, lower bounds),
// min(min + extent, upper bounds)), computed in int64 so that it cannot wrap, clamped into the
// loop's own range and cast back to the loop variable's type. The other conjuncts stay a
// guard around S (without `likely`, which only marked the guard as a whole).
//
// Pre: guards invariant in a serial loop are lifted out of it (lift_guards.h). Post: the
// moved loops have min `(t)min(max(lo, ...), hi)` and extent `(t)max(min(hi, ...), lo) - min`
// (the same min node), where lo and hi are the int64 casts of the old start and end; every
// iteration that passed the guard still runs, in the same order, and no other does.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt hoist_guard_bounds(const ir::Stmt& s);

}  // namespace mrd::lower
