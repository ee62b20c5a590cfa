// What a workload is, as auto_scheduler's registry knows it: either a registered function
// called by name with arguments (it travels as (name, args) and every process rebuilds it
// from its own registry), or an explicit tensor list under its content-derived key.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "common/ir/operation.h"

namespace mrd::registry {

/// One argument of a function workload: an integer, a float or a string (e.g. a dtype).
using WorkloadArg = std::variant<int64_t, double, std::string>;

struct FunctionWorkload {
  std::string name;
  std::vector<WorkloadArg> args;
};

struct TensorWorkload {
  /// The workload key (`tensor_workload_key` of the tensors).
  std::string key;
  /// Inputs then outputs, in argument order.
  std::vector<ir::Tensor> tensors;
};

using Workload = std::variant<FunctionWorkload, TensorWorkload>;

/// Builds a workload's tensor list from its arguments; throws UserError on bad arguments.
using Builder = std::function<std::vector<ir::Tensor>(const std::vector<WorkloadArg>&)>;

/// Python's `json.dumps([name, *args])`, TVM's `make_workload_key`:
/// `["matmul", 512, 512, 512, "float32"]`.
std::string function_workload_key(const std::string& name, const std::vector<WorkloadArg>& args);

}  // namespace mrd::registry
