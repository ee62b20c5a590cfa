// C code generation: turns a lowered PrimFunc into one C translation unit that the system
// compiler builds into a shared object. The unit exports `int32_t mrd_entry(void* const* args)`,
// where args[i] points to the data of parameter i (64-byte aligned); it returns 0 on success
// and non-zero when a heap allocation failed.
//
// Every identifier in the output is generated (buffers b0, b1, ..., variables v0, v1, ...);
// names from the workload appear only in comments, reduced to [A-Za-z0-9_]. The unit starts
// with the prelude (c_prelude.h). Parallel loops become OpenMP `parallel for`. Unrolled loops
// that finish_lowering left (too many stores to expand) get `GCC unroll`. A vectorized loop
// becomes GCC vector statements when the vector plan says so (c_vector_plan.h), else an `omp
// simd` loop (extent <= 4: scalar statements). A local allocation lives in variables (vector
// or scalar registers) within a loop body or its whole scope when the register plan admits
// every access there (c_register_plan.h), loaded on entry and stored on exit. A loop whose
// extent is `end - min` (its own min node: bounds taken from a guard) prints `v < end`.
// Floats are written exactly (hex literals). Guards are lifted out of serial loops and turned
// into their bounds before printing, in the C tail of finish_lowering.
#pragma once

#include <cstdint>
#include <string>

#include "common/ir/stmt.h"

namespace mrd::codegen {

/// Local allocations up to this many bytes live on the stack; larger ones on the heap.
inline constexpr int64_t kMaxStackAllocationBytes = 64 * 1024;

/// The C type that holds an element of type t in the generated unit (bool is a uint8_t), and
/// in the header of an exported kernel.
const char* c_type(ir::DType t);

/// The C source of `f`, as finish_lowering leaves it for Backend::C. Throws InternalError for
/// IR that lowering should never produce (tensor reads, reductions, unbound variables).
std::string emit_c(const ir::PrimFunc& f);

}  // namespace mrd::codegen
