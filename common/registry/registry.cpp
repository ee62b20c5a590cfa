#include "common/registry/registry.h"

#include "common/dag/workload_key.h"
#include "common/registry/builtin_workloads.h"
#include "common/util/error.h"

namespace mrd::registry {

Registry& Registry::global() {
  static Registry* registry = [] {
    auto* r = new Registry();
    for (auto& [name, builder] : builtin_workloads()) r->register_function(name, builder);
    return r;
  }();
  return *registry;
}

void Registry::register_function(std::string name, Builder b) {
  MRD_USER_CHECK(!name.empty(), "a workload function needs a name");
  MRD_USER_CHECK(b != nullptr, "workload function ", name, " has no builder");
  std::lock_guard<std::mutex> lock(mu_);
  functions_[std::move(name)] = std::move(b);
}

std::string Registry::register_tensors(std::vector<ir::Tensor> tensors) {
  std::string key = dag::tensor_workload_key(tensors);
  std::lock_guard<std::mutex> lock(mu_);
  tensors_[key] = std::move(tensors);
  return key;
}

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<ir::Tensor> Registry::instantiate(const Workload& w) const {
  if (const auto* f = std::get_if<FunctionWorkload>(&w)) {
    Builder builder;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = functions_.find(f->name);
      if (it != functions_.end()) builder = it->second;
    }
    if (!builder) {
      throw UserError(str_cat("unknown workload function \"", f->name,
                              "\"; known functions: ", join(function_names())));
    }
    return builder(f->args);
  }
  const auto& t = std::get<TensorWorkload>(w);
  if (!t.tensors.empty()) return t.tensors;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tensors_.find(t.key);
  if (it == tensors_.end()) {
    std::vector<std::string> names;
    for (const auto& [name, builder] : functions_) names.push_back(name);
    throw UserError(str_cat("unknown workload key ", t.key,
                            " (not registered, and the workload "
                            "carries no tensors); known functions: ",
                            join(names)));
  }
  return it->second;
}

std::vector<std::string> Registry::function_names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, builder] : functions_) names.push_back(name);
  return names;
}

void Registry::clear_tensor_entries() {
  std::lock_guard<std::mutex> lock(mu_);
  tensors_.clear();
}

std::string workload_key(const Workload& w) {
  if (const auto* f = std::get_if<FunctionWorkload>(&w)) {
    return function_workload_key(f->name, f->args);
  }
  const auto& t = std::get<TensorWorkload>(w);
  return t.key.empty() ? dag::tensor_workload_key(t.tensors) : t.key;
}

}  // namespace mrd::registry
