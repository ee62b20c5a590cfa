// Explicit unrolling before C emission: a loop the lowering marked unrolled, with constant
// bounds, is replaced by copies of its body with the loop variable bound to each constant, as
// TVM's UnrollLoop does under unroll_explicit. Indices into local buffers then become constant
// offsets, which the emitter keeps in registers. The lowered IR itself is left as TVM's
// structure (loops marked unrolled); only the code generator sees the copies. A loop whose
// copies would exceed kMaxUnrolledStores stores stays a loop (emitted with `GCC unroll`).
#pragma once

#include <cstdint>

#include "common/ir/stmt.h"

namespace mrd::codegen {

/// Most stores one expanded loop nest may hold; keeps the C and its compile time small.
inline constexpr int64_t kMaxUnrolledStores = 128;

ir::Stmt expand_unrolled(const ir::Stmt& s);

}  // namespace mrd::codegen
