// Explicit unrolling, as TVM's UnrollLoop does under unroll_explicit: a loop marked unrolled
// (by unroll_loop or an `unroll` annotation), with constant bounds, is replaced by copies of
// its body with the loop variable bound to each constant. A loop whose copies would hold more
// than `max_stores` stores stays a loop (the C backend asks the compiler to unroll it); each
// backend's pipeline chooses its limit.
#pragma once

#include <cstdint>

#include "common/ir/stmt.h"

namespace mrd::lower {

/// The C backend's limit: keeps the C and its compile time small.
inline constexpr int64_t kMaxUnrolledStoresC = 128;
/// The LLVM backend's limit: TVM expands every unrolled loop; this only bounds absurd nests.
inline constexpr int64_t kMaxUnrolledStoresLLVM = 1 << 16;

ir::Stmt expand_unrolled(const ir::Stmt& s, int64_t max_stores);

}  // namespace mrd::lower
