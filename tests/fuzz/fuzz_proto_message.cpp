// One message body of any type: the first two bytes are the message type (little endian),
// the rest is the body, so the fuzzer reaches every message decoder directly.
#include "tests/fuzz/decode_message.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  uint16_t type = static_cast<uint16_t>(data[0] | data[1] << 8);
  mrd::fuzz::decode_message(type, mrd::fuzz::as_bytes(data + 2, size - 2));
  return 0;
}
