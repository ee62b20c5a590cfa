// Task files: parse_task_file must reject bad text with a UserError only.
#include "common/measure/task_file.h"
#include "common/util/error.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mrd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    measure::parse_task_file(fuzz::as_bytes(data, size));
  } catch (const UserError&) {
  }
  return 0;
}
