// Tuning-log lines (TVM's JSON records): from_json_line must reject a bad line with a
// UserError only; a line it accepts must be written back as a line it accepts again, and
// task_of must rebuild its task or refuse with a UserError.
#include "common/record/record.h"
#include "common/util/error.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mrd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  record::Record r;
  try {
    r = record::from_json_line(fuzz::as_bytes(data, size));
  } catch (const UserError&) {
    return 0;
  }
  std::string line = record::to_json_line(r);
  fuzz::require(record::to_json_line(record::from_json_line(line)) == line,
                "re-writing an accepted record is not stable");
  try {
    record::task_of(r);
  } catch (const UserError&) {
  }
  return 0;
}
