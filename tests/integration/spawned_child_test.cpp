// Spawned, not forked: a workload made at run time in this process only travels as bytes to
// a freshly exec'ed helper (dag_child), which shares no memory with us, rebuilds the DAG and
// evaluates it. Its report must match what this process computes on the original tensors.
#include <boost/process.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "common/dag/compute_dag.h"
#include "common/dag/structural_hash.h"
#include "common/dag/workload_key.h"
#include "common/interp/reference_interpreter.h"
#include "common/ir/te.h"
#include "common/registry/registry.h"
#include "common/registry/workload_codec.h"

namespace bp = boost::process;
using namespace mrd;
using namespace mrd::ir;
using Catch::Matchers::Contains;

namespace {

struct ChildResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Starts dag_child, writes `bytes` to its stdin, closes it and collects its output.
ChildResult run_child(const std::string& bytes) {
  std::string exe = std::string(MEASURERD_BINARY_DIR) + "/tests/dag_child";
  bp::opstream in;
  bp::ipstream out, err;
  bp::child c(exe, bp::std_in<in, bp::std_out> out, bp::std_err > err);
  in.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  in.flush();
  in.pipe().close();
  ChildResult r;
  r.out.assign(std::istreambuf_iterator<char>(out), std::istreambuf_iterator<char>());
  r.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  c.wait();
  r.exit_code = c.exit_code();
  return r;
}

/// What dag_child reports for these tensors, computed here on the original objects.
std::string expected_report(const std::vector<Tensor>& tensors) {
  dag::ComputeDAG d(tensors);
  std::vector<interp::HostTensor> inputs;
  uint64_t seed = 1000;
  for (const Tensor& t : d.tensors()) {
    if (t->is_placeholder()) inputs.push_back(interp::make_input(*t.op(), seed++));
  }
  auto outputs = interp::evaluate(d, inputs);
  std::string report = "hash " + dag::structural_hash(tensors) + "\n";
  report += "outputs " + std::to_string(outputs.size()) + "\n";
  for (size_t o = 0; o < outputs.size(); ++o) {
    double sum = 0, weighted = 0;
    for (size_t i = 0; i < outputs[o].data.size(); ++i) {
      sum += outputs[o].data[i];
      weighted += outputs[o].data[i] * static_cast<double>(i % 7 + 1);
    }
    char line[128];
    std::snprintf(line, sizeof line, "output %zu %zu %.17g %.17g\n", o, outputs[o].data.size(), sum,
                  weighted);
    report += line;
  }
  return report;
}

/// A chain that exists only in this process: odd shapes, a shared input read twice, two
/// reductions and two outputs.
std::vector<Tensor> runtime_chain() {
  Tensor x = placeholder({7, 13}, "x");
  Tensor w = placeholder({13, 5}, "w");
  IterVar k = reduce_axis(0, 13, "k");
  Tensor y =
      compute({7, 5}, [&](Var i, Var j) { return sum(x(i, k) * w(k, j), {k}); }, "y", {"i", "j"});
  Tensor z = compute({7, 5}, [&](Var i, Var j) { return tanh(y(i, j) * 0.01f) + x(i, j + 3); }, "z",
                     {"i", "j"});
  IterVar r = reduce_axis(0, 5, "r");
  Tensor m = compute({7}, [&](Var i) { return max(z(i, r), std::vector<IterVar>{r}); }, "m", {"i"});
  return {x, w, z, m};
}

}  // namespace

TEST_CASE("a workload built at run time is rebuilt and evaluated by a spawned child",
          "[integration][spawn]") {
  std::vector<Tensor> tensors = runtime_chain();
  std::string key = dag::tensor_workload_key(tensors);
  // Not registered anywhere: the child gets it only from the bytes.
  std::string bytes = registry::workload_to_binary(registry::TensorWorkload{key, tensors});
  ChildResult r = run_child(bytes);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == expected_report(tensors));
  CHECK_THAT(r.out, Contains("outputs 2"));
}

TEST_CASE("a function workload crosses as its name and is rebuilt by the child",
          "[integration][spawn]") {
  registry::FunctionWorkload f{"conv2d_nchw",
                               {int64_t{1}, int64_t{3}, int64_t{9}, int64_t{9}, int64_t{4},
                                int64_t{3}, int64_t{3}, int64_t{2}, int64_t{1}}};
  ChildResult r = run_child(registry::workload_to_binary(f));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == expected_report(registry::Registry::global().instantiate(f)));
}

TEST_CASE("the child reports an unknown function or bad bytes as an error, not a crash",
          "[integration][spawn]") {
  ChildResult unknown = run_child(
      registry::workload_to_binary(registry::FunctionWorkload{"made_up_here", {int64_t{3}}}));
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Contains("made_up_here") && Contains("matmul"));
  CHECK(unknown.out.empty());

  std::string bytes = registry::workload_to_binary(registry::TensorWorkload{"", runtime_chain()});
  ChildResult truncated = run_child(bytes.substr(0, bytes.size() / 2));
  CHECK(truncated.exit_code == 2);
  CHECK_FALSE(truncated.err.empty());

  ChildResult garbage = run_child("not a workload at all");
  CHECK(garbage.exit_code == 2);
  CHECK_FALSE(garbage.err.empty());
}
