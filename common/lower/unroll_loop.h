// Loop unrolling, as TVM's UnrollLoop under `pragma_auto_unroll_max_step` (with
// unroll_explicit): inside the scope of a loop carrying auto_unroll_max_step N, a serial loop
// with constant extent is unrolled when extent × (statements in its body, inner unrolled loops
// counted unrolled) ≤ N and no loop inside it stayed a loop; loops annotated unroll always
// are. Unrolled loops become ForKind::Unrolled (the code generator unrolls them). A
// vectorized loop counts as one statement, as after TVM's vectorizer, unless a condition in it
// varies across lanes (TVM then leaves a serial loop, which counts and may unroll as one). Finally,
// loops of extent 1 are replaced by their body with the variable bound to the loop's start.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt unroll_loop(const ir::Stmt& body);

}  // namespace mrd::lower
