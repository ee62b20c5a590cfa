#include "common/measure/heap_policy.h"

#include <malloc.h>

namespace mrd::measure {

void place_large_allocations_on_heap() {
  // Also fixes the trim threshold at its default (128 KiB); the workspace pool and the
  // arguments keep their blocks while a candidate runs, so nothing is trimmed per call.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

void retain_freed_heap() {
  // When glibc trims the heap's top it keeps M_TOP_PAD bytes of it; when it extends the heap it
  // asks for the request plus M_TOP_PAD.
  ::mallopt(M_TOP_PAD, static_cast<int>(kRetainedHeapBytes));
}

}  // namespace mrd::measure
