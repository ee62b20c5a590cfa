// How a worker's heap behaves: where a measurement's large buffers live, and what a freed
// compile gives back to the kernel.
//
// Placement. glibc serves every allocation above its mmap threshold (128 KiB at first) with a
// fresh mmap and puts the block 64 bytes into its first page, so in a fresh worker every large
// argument and workspace block starts at the same offset within its pages; a kernel that walks
// two of them with a stride of whole pages then hits the same L1 sets and 4K-aliases loads on
// stores (layer_norm(256, 1024) state 14 of a TVM-sampled set ran 2.4x slower than in TVM that
// way). TVM's runner is a long-lived Python process whose large blocks come from the heap, one
// after another (glibc raises the threshold at the first large free). This puts the measuring
// process there from the start.
//
// Retention. An LLVM compile allocates tens of MiB in small pieces and frees them at its end;
// glibc then trims the heap's top back to the kernel (anything past 128 KiB), and the next
// compile takes a page fault for every page again: 17,000 faults over 22 matmul 512 candidates,
// about 8 % of their compile time on these machines. Keeping a pad at the top spares them.
// Addresses do not change: the pad only changes how far the heap's end moves, never where a
// block is placed.
#pragma once

#include <cstddef>

namespace mrd::measure {

/// Allocations up to 32 MiB (glibc's largest mmap threshold) come from the heap. Call once,
/// early, in a process that measures.
void place_large_allocations_on_heap();

/// Free memory at the heap's top kept for reuse instead of being given back.
inline constexpr size_t kRetainedHeapBytes = size_t{64} << 20;

/// Up to kRetainedHeapBytes of freed memory at the heap's top stays mapped for the next
/// allocations, and the heap grows by that much at a time. Call once, early.
void retain_freed_heap();

}  // namespace mrd::measure
