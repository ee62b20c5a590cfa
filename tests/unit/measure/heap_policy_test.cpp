// A worker's heap: large measurement buffers come from the heap, not from fresh mmaps, and a
// freed compile's memory stays mapped for the next one.
#include "common/measure/heap_policy.h"

#include <catch2/catch.hpp>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

TEST_CASE("heap policy: a 1 MiB block comes from the heap, not from a fresh mmap") {
  mrd::measure::place_large_allocations_on_heap();
  size_t mapped_before = ::mallinfo2().hblks;
  void* a = std::aligned_alloc(64, size_t{1} << 20);
  void* b = std::aligned_alloc(64, size_t{1} << 20);
  REQUIRE(a != nullptr);
  REQUIRE(b != nullptr);
  CHECK(::mallinfo2().hblks == mapped_before);
  // One after the other on the heap: not at the same offset within their pages.
  CHECK(reinterpret_cast<uintptr_t>(a) % 4096 != reinterpret_cast<uintptr_t>(b) % 4096);
  std::free(b);
  std::free(a);
}

TEST_CASE("heap policy: freed memory at the heap's top stays mapped, up to the retained size") {
  mrd::measure::place_large_allocations_on_heap();
  mrd::measure::retain_freed_heap();
  // 16 MiB in 64 KiB pieces, as a compile allocates, touched and then freed: without the policy
  // glibc would give all but 128 KiB of the heap's top back at the last free.
  constexpr size_t kPiece = size_t{64} << 10, kPieces = 256;
  void* pieces[kPieces];
  for (void*& p : pieces) {
    p = std::malloc(kPiece);
    REQUIRE(p != nullptr);
    std::memset(p, 1, kPiece);
  }
  for (size_t i = kPieces; i-- > 0;) std::free(pieces[i]);
  struct mallinfo2 after = ::mallinfo2();
  // keepcost: the free space at the heap's top, still mapped.
  CHECK(after.keepcost >= kPieces * kPiece);
  CHECK(after.keepcost <= mrd::measure::kRetainedHeapBytes + kPieces * kPiece);
}
