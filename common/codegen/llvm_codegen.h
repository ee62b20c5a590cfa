// LLVM code generation, the way TVM's CodeGenLLVM/CodeGenCPU build an `llvm` target: the
// lowered PrimFunc (after the LLVM tail of passes: vectorized, unrolled) becomes one LLVM
// module whose text is the build's source (and cache key).
//
// The module exports `i32 mrd_entry(i8** args)`, where args[i] is the data of parameter i
// (64-byte aligned), returning 0, or -1 when a heap allocation failed. As in TVM, the entry
// calls an internal, noinline `fastcc` compute function whose buffer arguments are
// `noalias align 64`. Loops are basic blocks with an i32 induction variable (`add nsw`);
// integer arithmetic is nsw; floordiv/floormod by a power of two are shifts and masks, by
// other constants a truncating division when the dividend is provably non-negative (TVM's
// LowerIntrin); a float a*b + c is llvm.fmuladd (TVM's FMA rule); exp, exp2, log, log2, log10,
// sqrt, sin, cos, fabs, pow, floor, ceil, trunc and round are LLVM intrinsics, tanh and sigmoid
// are TVM's formulas over exp, rsqrt is 1 / sqrt, isnan an unordered compare of x with itself
// and erf a call of the C library's erff / erf, as TVM's rules for llvm. Vector loads and stores through a stride-1 ramp are single vector accesses, others go
// lane by lane. A
// parallel loop's body is outlined into a closure launched on the OpenMP runtime
// (GOMP_parallel, every thread of the team taking one contiguous chunk, as TVM's
// TVMBackendParallelLaunch does; with one thread the closure is called directly, as TVM's
// launch does with one worker). As in TVM's LowerTVMBuiltin, a global-scope allocation under
// kMaxStackAllocaBytes lives on the stack of the function that runs it; every other one (every
// local-scope buffer, every larger one) is taken from the workspace through a function pointer
// that LLVM cannot see through, as TVM's TVMBackendAllocWorkspace is, so that LLVM keeps such
// buffers in memory as it does in TVM's build (it would split a stack accumulator into
// registers, and then fail to vectorize what TVM's build vectorizes).
//
// No identifier of the workload reaches the module: values and blocks are unnamed or carry
// generated names.
#pragma once

#include <string>

#include "common/codegen/target.h"
#include "common/ir/stmt.h"

namespace mrd::codegen {

/// TVM's runtime::kMaxStackAlloca: global-scope allocations below it are stack slots.
inline constexpr int64_t kMaxStackAllocaBytes = 1024;

/// The module's workspace hooks: weak globals holding `i8* (i64 alignment, i64 bytes)` and
/// `void (i8*)`, aligned_alloc and free unless the loader points them elsewhere.
inline constexpr const char* kWorkspaceAllocHook = "mrd_workspace_alloc";
inline constexpr const char* kWorkspaceFreeHook = "mrd_workspace_free";

/// The LLVM module of `f` for `target`, as LLVM IR text (unoptimized). Throws InternalError
/// for IR that lowering should never produce, UserError for a target LLVM cannot build for.
std::string emit_llvm(const ir::PrimFunc& f, const Target& target);

/// The version of the LLVM library in use ("14.0.6").
std::string llvm_version();

}  // namespace mrd::codegen
