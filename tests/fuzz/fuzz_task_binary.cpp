// Tasks as bytes (a MeasureRequest's task, a worker's job): task_from_binary must reject bad
// bytes with a DecodeError only, and an accepted task must survive a second round trip.
#include "common/measure/task.h"
#include "common/serialize/decode_error.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mrd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  measure::Task task;
  try {
    task = measure::task_from_binary(fuzz::as_bytes(data, size));
  } catch (const serialize::DecodeError&) {
    return 0;
  }
  std::string again = measure::task_to_binary(task);
  fuzz::require(measure::task_to_binary(measure::task_from_binary(again)) == again,
                "re-encoding an accepted task is not stable");
  return 0;
}
