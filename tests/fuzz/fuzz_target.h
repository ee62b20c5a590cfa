// The one entry point every fuzz target defines, as libFuzzer names it. A target returns 0 for
// any input its decoder rejects with its documented error type; any other exception escapes
// and any crash is left to happen, so that both the fuzzer and the replay runner report it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace mrd::fuzz {

inline std::string_view as_bytes(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

/// Fails the run (an escaping exception) when a property of decoded data does not hold.
struct PropertyViolated {
  const char* what;
};

inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "property violated: %s\n", what);
  throw PropertyViolated{what};
}

}  // namespace mrd::fuzz
