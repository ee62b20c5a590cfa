#include "common/measure/heap_placement.h"

#include <malloc.h>

namespace mrd::measure {

void place_large_allocations_on_heap() {
  // Also fixes the trim threshold at its default (128 KiB); the workspace pool and the
  // arguments keep their blocks while a candidate runs, so nothing is trimmed per call.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

}  // namespace mrd::measure
