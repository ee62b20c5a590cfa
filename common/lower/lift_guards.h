// Guard lifting for the C backend: a serial loop whose whole body is a guard `if (c) S`
// (no else) with `c` invariant in the loop and free of loads becomes `if (c) for (...) S`, so
// the condition is tested once instead of once per iteration. Nested serial loops lift from
// the innermost outwards: a guard invariant in a whole nest of serial loops ends up around it.
//
// Pre: a lowered body (after expand_unrolled). Post: no serial loop has such a guard as body;
// the same stores run under the same conditions, in the same order.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt lift_guards(const ir::Stmt& s);

}  // namespace mrd::lower
