// Helpers of the tuner tests: built-in workload DAGs, the keys of a list of candidates, and the
// check that a step list lowers and computes what the reference interpreter computes.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/tune/candidate.h"
#include "common/dag/compute_dag.h"
#include "common/interp/primfunc_eval.h"
#include "common/interp/reference_interpreter.h"
#include "common/lower/lower.h"
#include "common/registry/registry.h"

namespace mrd::tune::testing {

inline dag::ComputeDAG workload(const std::string& name, std::vector<registry::WorkloadArg> args) {
  return dag::ComputeDAG(
      registry::Registry::global().instantiate(registry::FunctionWorkload{name, std::move(args)}));
}

/// candidate_key of each candidate, in order.
inline std::vector<std::string> keys_of(const std::vector<Candidate>& cs) {
  std::vector<std::string> out;
  for (const Candidate& c : cs) out.push_back(candidate_key(c.steps));
  return out;
}

/// Number of output elements that differ from the reference interpreter (relative tolerance
/// 1e-4); NaN (never written) counts as a difference. Lowering errors propagate.
inline size_t count_wrong_elements(const dag::ComputeDAG& dag,
                                   const std::vector<schedule::Step>& steps) {
  ir::PrimFunc f = lower::lower(dag, steps);
  std::vector<interp::HostTensor> inputs;
  std::vector<std::vector<double>> storage;
  uint64_t seed = 11;
  for (const ir::Tensor& t : dag.tensors()) {
    if (t->is_placeholder()) {
      inputs.push_back(interp::make_input(*t.op(), seed++));
      storage.push_back(inputs.back().data);
    } else {
      storage.emplace_back(t->num_elements(), std::numeric_limits<double>::quiet_NaN());
    }
  }
  std::vector<std::vector<double>*> ptrs;
  for (auto& s : storage) ptrs.push_back(&s);
  interp::eval_primfunc(f, ptrs);
  std::vector<interp::HostTensor> expected = interp::evaluate(dag, inputs);
  size_t wrong = 0, k = 0;
  for (size_t i = 0; i < dag.tensors().size(); ++i) {
    if (dag.tensors()[i]->is_placeholder()) continue;
    const std::vector<double>& want = expected.at(k++).data;
    const std::vector<double>& got = storage[i];
    for (size_t e = 0; e < want.size(); ++e) {
      double d = std::fabs(got[e] - want[e]);
      if (!(d <= 1e-4 * std::max(1.0, std::fabs(want[e])))) ++wrong;
    }
  }
  return wrong;
}

/// The workloads of the TVM reference set (tests/data/tvm-reference).
inline const std::vector<std::string>& reference_workloads() {
  static const std::vector<std::string> names = {
      "matmul",          "matmul_add",  "matmul_relu_relu", "batch_matmul",
      "dense_bias_relu", "conv2d_nchw", "softmax"};
  return names;
}

/// One workload of the TVM reference set: its DAG and the steps of its scheduled states
/// (states 1..12; state 0 has no steps).
struct ReferenceSet {
  dag::ComputeDAG dag;
  std::vector<std::vector<schedule::Step>> states;
};

inline ReferenceSet load_reference(const std::string& name) {
  std::ifstream in(std::string(MEASURERD_TVM_REFERENCE_DIR) + "/" + name + ".records.json");
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  nlohmann::json key =
      nlohmann::json::parse(nlohmann::json::parse(line)["i"][0][0].get<std::string>());
  std::vector<registry::WorkloadArg> args;
  for (size_t i = 1; i < key.size(); ++i) {
    if (key[i].is_string()) {
      args.emplace_back(key[i].get<std::string>());
    } else {
      args.emplace_back(key[i].get<int64_t>());
    }
  }
  ReferenceSet set{workload(key[0].get<std::string>(), args), {}};
  while (std::getline(in, line)) {
    set.states.push_back(schedule::steps_from_json(nlohmann::json::parse(line)["i"][1][1]));
  }
  return set;
}

}  // namespace mrd::tune::testing
