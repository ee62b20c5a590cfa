#include "common/registry/workload.h"

#include "common/registry/python_json.h"

namespace mrd::registry {

std::string function_workload_key(const std::string& name, const std::vector<WorkloadArg>& args) {
  std::string out = "[" + python_json_string(name);
  for (const WorkloadArg& a : args) {
    out += ", ";
    if (const auto* i = std::get_if<int64_t>(&a)) {
      out += std::to_string(*i);
    } else if (const auto* d = std::get_if<double>(&a)) {
      out += python_json_float(*d);
    } else {
      out += python_json_string(std::get<std::string>(a));
    }
  }
  return out + "]";
}

}  // namespace mrd::registry
