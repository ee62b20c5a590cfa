// measurer workloads: the built-in function workloads and their arguments.
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "client/cli/commands.h"
#include "common/registry/registry.h"

namespace mrd::cli {
namespace {

// Argument lists of the built-ins, in TVM's order (the registry's documentation).
const std::map<std::string, std::string>& signatures() {
  static const std::map<std::string, std::string> s = {
      {"matmul", "N, L, M, dtype"},
      {"matmul_add", "N, L, M, dtype"},
      {"matmul_relu_relu", "N, L, M, dtype"},
      {"batch_matmul", "B, M, N, K"},
      {"dense_bias_relu", "N, K, M"},
      {"conv2d_nchw", "N, CI, H, W, CO, KH, KW, stride, padding"},
      {"depthwise_conv2d_nchw", "N, C, H, W, K, stride, padding"},
      {"softmax", "M, N"},
      {"layer_norm", "N, D"},
      {"max_pool2d", "N, C, H, W, kernel, stride, padding"},
  };
  return s;
}

}  // namespace

int run_workloads(const Common& common) {
  auto names = registry::Registry::global().function_names();
  nlohmann::json all = nlohmann::json::array();
  for (const auto& n : names) {
    auto it = signatures().find(n);
    std::string args = it == signatures().end() ? "" : it->second;
    if (common.json) {
      all.push_back({{"name", n}, {"args", args}});
    } else {
      std::cout << n << "(" << args << ")\n";
    }
  }
  if (common.json)
    std::cout << all.dump() << "\n";
  else
    std::cout << "\ndtype is one of float32, float64, int32, int64 where an argument takes it; "
                 "a task file names a workload as {\"function\": NAME, \"args\": [...]}.\n";
  return kOk;
}

}  // namespace mrd::cli
