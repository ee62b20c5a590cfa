// VectorizeLoop, as TVM's pass of that name: a loop annotated `vectorize` with a constant
// extent becomes vector statements. Its variable turns into Ramp(min, 1, lanes), every
// expression that depends on it becomes a vector of that many lanes (scalars are broadcast
// when combined with vectors), and loads and stores through vector indices read and write
// all lanes. Ramps stay ramps through + - * with scalars, and through floordiv/floormod by a
// constant when the linear form of the base proves every lane falls into one quotient, so a
// contiguous access remains contiguous. Loops inside the vectorized body stay loops with a
// vectorized body; a loop whose extent depends on the lanes becomes serial.
//
// Where a statement cannot be vectorized it is scalarized, the smallest enclosing statement
// only, as TVM does: it is wrapped in a serial loop over the lanes. That happens for a
// lane-dependent condition (an `if` or an if_then_else), for a lane-dependent argument of erf
// or rsqrt (the ops TVM leaves without its TVectorizable attribute), and, unlike TVM (which
// widens the allocation or writes every lane to one address), for an allocation inside the
// body and for a store of a lane-dependent value at a lane-invariant index (a reduction over
// the vectorized axis), which keeps the results right.
//
// Pre: storage flattened (one index per access), simplified. Post: no Vectorized loop left.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt vectorize_loop(const ir::Stmt& body);

}  // namespace mrd::lower
