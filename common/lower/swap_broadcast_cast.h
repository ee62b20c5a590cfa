// TVM's LowerIntrin rewrite of a multiply-add (lower_intrin.cc, MakeFMA and SwapBroadcastCast),
// the last rewrite TVM's build makes before LLVM code generation: in `c + a * b` (or
// `a * b + c`; the right operand is tried first), a factor that is a broadcast of a widening
// cast, Broadcast(Cast(T, x)), becomes Cast(T x lanes, Broadcast(x)), so that LLVM widens the
// vector (vpmovzxbd) instead of broadcasting the widened scalar. A cast widens when it doubles
// the width, or when both types are integers (bool counting as one, TVM's uint1) and the target
// is wider. An integer sum whose
// factor changed becomes `a' * b' + c`, the product first, as TVM rebuilds it; a float sum keeps
// its shape (the printer makes it the fma TVM makes of it, from the same factors). Nested sums
// are rewritten from the outside in.
//
// Pre: a lowered LLVM body (the last pass of the LLVM tail). Post: every value is unchanged.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::lower {

ir::Stmt swap_broadcast_cast(const ir::Stmt& s);

}  // namespace mrd::lower
