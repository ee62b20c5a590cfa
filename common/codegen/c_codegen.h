// C code generation: turns a lowered PrimFunc into one C translation unit that the system
// compiler builds into a shared object. The unit exports `int32_t mrd_entry(void* const* args)`,
// where args[i] points to the data of parameter i (64-byte aligned); it returns 0 on success
// and non-zero when a heap allocation failed.
//
// Every identifier in the output is generated (buffers b0, b1, ..., variables v0, v1, ...);
// names from the workload appear only in comments, reduced to [A-Za-z0-9_]. Parallel loops
// become OpenMP `parallel for`. Unrolled loops with constant bounds are expanded into copies
// (expand_unrolled.h), larger ones get `GCC unroll`. A vectorized loop whose body is one store
// under a chain of conditions, of contiguous or lane-invariant operands with + - * min max (and
// / for floats) and selects, becomes GCC vector statements in chunks of 16, 8, 4, 2 float lanes
// (8, 4, 2 double lanes...) and single lanes for a remainder. A condition on the lane must be
// affine in it: with constant terms only (padding borders) the loop is cut where it changes
// and each chunk takes its branch statically; with lane-invariant terms (guards of
// non-divisible splits) each chunk checks it at its first and last lane and runs lane by lane
// when it fails. A strided read into a register accumulator is gathered. Other vectorized
// loops stay `omp simd` loops (extent <= 4: scalar statements). Guards invariant in serial
// loops and guards that bound a serial loop are rewritten before printing (the C tail of
// finish_lowering: lift_guards, hoist_guard_bounds); a loop whose extent is `end - min` prints
// `v < end`. A local allocation whose accesses
// within a loop body (or its whole scope) are all at constant offsets from one invariant base
// lives there in variables (vector or scalar registers), loaded on entry and stored on exit.
// Floats are written exactly (hex literals).
#pragma once

#include <cstdint>
#include <string>

#include "common/ir/stmt.h"

namespace mrd::codegen {

/// Local allocations up to this many bytes live on the stack; larger ones on the heap.
inline constexpr int64_t kMaxStackAllocationBytes = 64 * 1024;

/// The C source of `f`, lowered for the C backend (finish_lowering with Backend::C; without
/// its tail the output is still correct, only guards stay inside loops). Throws InternalError for IR that lowering should never produce
/// (tensor reads, reductions, unbound variables).
std::string emit_c(const ir::PrimFunc& f);

}  // namespace mrd::codegen
