// Workloads as bytes from a peer: workload_from_binary must reject bad bytes with a
// DecodeError only; an accepted workload must survive a second round trip and be
// instantiated by the registry or refused with a UserError (bad name or arguments).
#include "common/registry/registry.h"
#include "common/registry/workload_codec.h"
#include "common/util/error.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mrd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  registry::Workload w;
  try {
    w = registry::workload_from_binary(fuzz::as_bytes(data, size));
  } catch (const serialize::DecodeError&) {
    return 0;
  }
  std::string again = registry::workload_to_binary(w);
  fuzz::require(registry::workload_to_binary(registry::workload_from_binary(again)) == again,
                "re-encoding an accepted workload is not stable");
  try {
    registry::Registry::global().instantiate(w);
  } catch (const UserError&) {
  }
  return 0;
}
