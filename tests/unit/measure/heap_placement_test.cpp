// Large measurement buffers come from the heap, not from fresh mmaps.
#include "common/measure/heap_placement.h"

#include <catch2/catch.hpp>
#include <malloc.h>

#include <cstdlib>

TEST_CASE("heap placement: a 1 MiB block comes from the heap, not from a fresh mmap") {
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
