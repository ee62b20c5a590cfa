// Where a measurement's large buffers live. glibc serves every allocation above its mmap
// threshold (128 KiB at first) with a fresh mmap and puts the block 64 bytes into its first
// page, so in a fresh worker every large argument and workspace block starts at the same
// offset within its pages; a kernel that walks two of them with a stride of whole pages then
// hits the same L1 sets and 4K-aliases loads on stores (layer_norm(256, 1024) state 14 of a
// TVM-sampled set ran 2.4x slower than in TVM that way). TVM's runner is a long-lived Python
// process whose large blocks come from the heap, one after another (glibc raises the
// threshold at the first large free). This puts the measuring process there from the start.
#pragma once

namespace mrd::measure {

/// Allocations up to 32 MiB (glibc's largest mmap threshold) come from the heap. Call once,
/// early, in a process that measures.
void place_large_allocations_on_heap();

}  // namespace mrd::measure
