// The workload key of a tensor list, as TVM's ComputeDAG.workload_key():
// `json.dumps([hash, *io_shapes])`, e.g. `["3f2a...", [512, 512], [512, 512], [512, 512]]`,
// with our structural hash in place of the MD5 of TVM's DAG print.
#pragma once

#include <string>
#include <vector>

#include "common/ir/operation.h"

namespace mrd::dag {

std::string tensor_workload_key(const std::vector<ir::Tensor>& tensors);

}  // namespace mrd::dag
