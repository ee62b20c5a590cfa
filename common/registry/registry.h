// The workload registry, as TVM's WORKLOAD_FUNC_REGISTRY: function workloads by name (each
// process has its own copy, pre-filled with the built-ins) and tensor workloads by key.
// A function workload crosses process boundaries as (name, args) and is rebuilt here; a
// tensor workload carries its DAG with it.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/registry/workload.h"
#include "common/registry/workload_codec.h"  // workload_to_binary / _from_binary / _json

namespace mrd::registry {

class Registry {
 public:
  /// An empty registry (tests); global() is the one pre-filled with the built-ins.
  Registry() = default;
  /// The process-wide registry, pre-filled with the built-in workloads.
  static Registry& global();

  /// Registers (or replaces) a function workload.
  void register_function(std::string name, Builder b);
  /// Registers a tensor list under its workload key and returns the key.
  std::string register_tensors(std::vector<ir::Tensor> tensors);
  /// A function workload is built by its registered builder; a tensor workload yields its
  /// tensors as given (or, when it has none, those registered under its key). Throws
  /// UserError for an unknown name or key (listing the known names) and for bad arguments.
  std::vector<ir::Tensor> instantiate(const Workload& w) const;
  /// Registered function names, sorted.
  std::vector<std::string> function_names() const;
  /// Forgets every tensor workload.
  void clear_tensor_entries();

 private:
  mutable std::mutex mu_;
  std::map<std::string, Builder> functions_;
  std::map<std::string, std::vector<ir::Tensor>> tensors_;
};

/// The workload key: `["name", args...]` for a function workload; the stored key of a tensor
/// workload (computed from its tensors when empty).
std::string workload_key(const Workload& w);

}  // namespace mrd::registry
