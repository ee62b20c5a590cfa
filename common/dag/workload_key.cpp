#include "common/dag/workload_key.h"

#include "common/dag/structural_hash.h"

namespace mrd::dag {

std::string tensor_workload_key(const std::vector<ir::Tensor>& tensors) {
  std::string out = "[\"" + structural_hash(tensors) + "\"";
  for (const ir::Tensor& t : tensors) {
    out += ", [";
    for (size_t d = 0; d < t->shape.size(); ++d) {
      out += (d ? ", " : "") + std::to_string(t->shape[d]);
    }
    out += "]";
  }
  return out + "]";
}

}  // namespace mrd::dag
