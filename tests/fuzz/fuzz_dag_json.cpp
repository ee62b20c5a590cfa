// DAG archives as JSON text (task files): dag_from_json must reject bad text with a
// DecodeError only; what it accepts must re-encode to text that decodes again to the same
// text, and must make a ComputeDAG or be refused with a UserError.
#include "common/dag/compute_dag.h"
#include "common/serialize/serialize.h"
#include "common/util/error.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mrd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<ir::Tensor> tensors;
  try {
    tensors = serialize::dag_from_json(fuzz::as_bytes(data, size));
  } catch (const serialize::DecodeError&) {
    return 0;
  }
  std::string again = serialize::dag_to_json(tensors);
  fuzz::require(serialize::dag_to_json(serialize::dag_from_json(again)) == again,
                "re-encoding an accepted archive is not stable");
  try {
    dag::ComputeDAG dag(tensors);
  } catch (const UserError&) {
  }
  return 0;
}
