// A child process for the spawned-process tests: it knows nothing but the bytes on its
// stdin (a workload archive). It decodes the workload, instantiates it from its own registry
// (function workloads) or from the bytes (tensor workloads), evaluates it with the reference
// interpreter on deterministic inputs (input p gets seed 1000 + p) and writes to stdout:
//   hash <structural hash>
//   outputs <count>
//   output <index> <elements> <sum> <weighted sum>      (one line per output, %.17g)
// The weighted sum weights element i by (i % 7) + 1, so that a permutation shows. Any failure
// is one line on stderr and exit status 2; no exception leaves the process.
#include <cstdio>
#include <exception>
#include <iostream>
#include <iterator>
#include <string>

#include "common/dag/compute_dag.h"
#include "common/dag/structural_hash.h"
#include "common/interp/reference_interpreter.h"
#include "common/registry/registry.h"
#include "common/registry/workload_codec.h"

namespace {

int run() {
  std::string bytes((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  mrd::registry::Workload w = mrd::registry::workload_from_binary(bytes);
  std::vector<mrd::ir::Tensor> tensors = mrd::registry::Registry::global().instantiate(w);
  mrd::dag::ComputeDAG dag(tensors);

  std::vector<mrd::interp::HostTensor> inputs;
  uint64_t seed = 1000;
  for (const mrd::ir::Tensor& t : dag.tensors()) {
    if (t->is_placeholder()) inputs.push_back(mrd::interp::make_input(*t.op(), seed++));
  }
  std::vector<mrd::interp::HostTensor> outputs = mrd::interp::evaluate(dag, inputs);

  std::printf("hash %s\n", mrd::dag::structural_hash(tensors).c_str());
  std::printf("outputs %zu\n", outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    double sum = 0, weighted = 0;
    const auto& data = outputs[o].data;
    for (size_t i = 0; i < data.size(); ++i) {
      sum += data[i];
      weighted += data[i] * static_cast<double>(i % 7 + 1);
    }
    std::printf("output %zu %zu %.17g %.17g\n", o, data.size(), sum, weighted);
  }
  return std::fflush(stdout) == 0 ? 0 : 2;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dag_child: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "dag_child: unknown exception\n");
  }
  return 2;
}
