// The workspace allocations of loaded LLVM kernels (mrd_workspace_alloc / mrd_workspace_free
// in the module, see llvm_codegen.h), served as TVM's runtime serves TVMBackendAllocWorkspace:
// from a pool that keeps each block a kernel gives back and hands it out again. A kernel that
// takes a buffer per call, or per parallel task, then pays no page faults, mmap/munmap or heap
// trimming per call, as under TVM's WorkspacePool. (Plain aligned_alloc/free, the module's
// default, returns a 1 MiB buffer to the system at every free: a layer_norm state ran 2.4x
// slower that way than in TVM.) As TVM's, the pool is one per thread (a kernel's parallel
// tasks each take theirs), vectors without a lock or a node allocation, so that a buffer per
// parallel task costs about what it costs under TVM. (With one locked map for the process, a
// depthwise conv2d state of te_workload's DEP, 224 tasks with a 3.4 KiB buffer each, took
// 67 us a call instead of 58 us.)
#pragma once

#include <cstddef>
#include <cstdint>

namespace mrd::measure {

/// The kernel-side signatures: i8* (i64 alignment, i64 bytes) and void (i8*).
void* workspace_alloc(int64_t alignment, int64_t bytes);
void workspace_free(void* p);

/// Frees every block the pools of all threads keep (blocks in use stay). Call when no kernel
/// runs: the last kernel gone, or a test between calls.
void release_workspace_pool();

/// Blocks kept and bytes in them over all threads' pools, for tests (when no kernel runs).
struct WorkspacePoolStats {
  size_t kept_blocks = 0;
  size_t kept_bytes = 0;
  size_t blocks_in_use = 0;
};
WorkspacePoolStats workspace_pool_stats();

}  // namespace mrd::measure
