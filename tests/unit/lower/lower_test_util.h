// Helpers of the lowering tests: run a lowered function on the primfunc evaluator and
// compare with the reference interpreter of the DAG.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/dag/compute_dag.h"
#include "common/interp/primfunc_eval.h"
#include "common/interp/reference_interpreter.h"
#include "common/lower/lower.h"
#include "common/registry/registry.h"

namespace mrd::lower::testing {

/// Runs f on `inputs` (one per placeholder among dag.tensors()); returns the outputs in
/// dag.tensors() order (the compute tensors), NaN where never written.
inline std::vector<std::vector<double>> run_lowered(const dag::ComputeDAG& dag,
                                                    const ir::PrimFunc& f,
                                                    const std::vector<interp::HostTensor>& inputs) {
  std::vector<std::vector<double>> storage;
  size_t in = 0;
  for (const ir::Tensor& t : dag.tensors()) {
    if (t->is_placeholder()) {
      storage.push_back(inputs.at(in++).data);
    } else {
      storage.emplace_back(t->num_elements(), std::numeric_limits<double>::quiet_NaN());
    }
  }
  std::vector<std::vector<double>*> ptrs;
  for (auto& s : storage) ptrs.push_back(&s);
  interp::eval_primfunc(f, ptrs);
  std::vector<std::vector<double>> out;
  for (size_t i = 0; i < dag.tensors().size(); ++i) {
    if (!dag.tensors()[i]->is_placeholder()) out.push_back(std::move(storage[i]));
  }
  return out;
}

/// Lowers dag with steps and checks every output element against the reference interpreter
/// (absolute tolerance tol), as lowered and after the LLVM tail of passes. Returns the lowered function.
inline ir::PrimFunc check_lowering(const dag::ComputeDAG& dag,
                                   const std::vector<schedule::Step>& steps, double tol = 1e-5,
                                   uint64_t seed = 7) {
  ir::PrimFunc f = lower(dag, steps);
  std::vector<interp::HostTensor> inputs;
  uint64_t s = seed;
  for (const ir::Tensor& t : dag.tensors()) {
    if (t->is_placeholder()) inputs.push_back(interp::make_input(*t.op(), s++));
  }
  std::vector<interp::HostTensor> expected = interp::evaluate(dag, inputs);
  // The lowered function, and the same after the LLVM backend's tail (vectorized loops as
  // vectors, unrolled loops expanded).
  for (bool llvm_tail : {false, true}) {
    INFO((llvm_tail ? "after the LLVM tail of passes" : "as lowered"));
    std::vector<std::vector<double>> got =
        run_lowered(dag, llvm_tail ? finish_lowering(f, Backend::LLVM) : f, inputs);
    REQUIRE(got.size() == expected.size());
    for (size_t k = 0; k < got.size(); ++k) {
      REQUIRE(got[k].size() == expected[k].data.size());
      size_t bad = 0;
      double worst = 0;
      for (size_t i = 0; i < got[k].size(); ++i) {
        double d = std::fabs(got[k][i] - expected[k].data[i]);
        double scale = std::max(1.0, std::fabs(expected[k].data[i]));
        if (!(d <= tol * scale)) {
          ++bad;
          worst = std::isnan(d) ? d : std::max(worst, d);
        }
      }
      INFO("output " << k << ": " << bad << " elements differ, worst " << worst);
      CHECK(bad == 0);
    }
  }
  return f;
}

inline dag::ComputeDAG builtin_dag(const std::string& name,
                                   std::vector<registry::WorkloadArg> args) {
  return dag::ComputeDAG(
      registry::Registry::global().instantiate(registry::FunctionWorkload{name, std::move(args)}));
}

}  // namespace mrd::lower::testing
