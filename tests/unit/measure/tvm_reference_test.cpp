// Every state of the TVM reference set (tests/data/tvm-reference), built with the real
// compilers and run with the correctness check, on both backends: the compiled kernel's output
// must equal the reference interpreter's. This is where generated code meets the oracle for
// every step kind TVM's CPU sketches emit (AN CA CHW CI CR FSP FU PR RE RF SP). The LLVM
// backend builds as TVM does (O3, the record's target). To keep the suite fast on two cores
// the C backend builds most workloads at -O1: GCC still vectorizes every `omp simd` loop there
// (they are force-vectorized at any level), so the vector semantics are exercised; matmul and
// matmul_add also build with the default -O3 flags.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/measure/pipeline.h"
#include "tests/support/temp_dir.h"

using namespace mrd;
using namespace mrd::measure;

namespace {

registry::FunctionWorkload workload_of(const std::string& key) {
  nlohmann::json k = nlohmann::json::parse(key);
  registry::FunctionWorkload w{k[0].get<std::string>(), {}};
  for (size_t i = 1; i < k.size(); ++i) {
    if (k[i].is_number_integer()) w.args.emplace_back(k[i].get<int64_t>());
    else if (k[i].is_number()) w.args.emplace_back(k[i].get<double>());
    else w.args.emplace_back(k[i].get<std::string>());
  }
  return w;
}

/// Every state of `name` on one backend: "c" (at -O1 unless default_flags) or "llvm" (the
/// record's own target).
void check_workload(const std::string& name, const std::string& backend, bool default_flags = false) {
  BuildConfig config;
  if (!default_flags) config.flags = {"-O1", "-march=native", "-fPIC", "-shared", "-fopenmp"};
  static const mrd::testing::TempDir cache("mrd-tvmref-test");  // one per process
  config.cache_dir = cache.path.string();
  MeasureOptions options;
  options.number = 1;
  options.repeat = 1;
  options.min_repeat_ms = 0;
  options.check_correctness = true;
  // What is tested is the code, not how fast a loaded machine builds it.
  options.build_timeout = 600;
  std::ifstream in(std::string(MEASURERD_TVM_REFERENCE_DIR) + "/" + name + ".records.json");
  REQUIRE(in);
  int state = 0;
  for (std::string line; std::getline(in, line); ++state) {
    nlohmann::json rec = nlohmann::json::parse(line);
    Task task;
    task.workload = workload_of(rec["i"][0][0].get<std::string>());
    task.target = backend == "c" ? "c" : rec["i"][0][1].get<std::string>();
    std::string steps = rec["i"][1][1].dump();
    INFO(name << " state " << state << " on " << task.target << ": " << steps);
    BuildOutput b = build_candidate(task, steps, options, config);
    INFO(b.result.error_msg);
    REQUIRE(b.result.error_no == MeasureErrorNo::NoError);
    // Built again from fresh nodes (other addresses): the same source text, so a cache hit.
    BuildOutput again = build_candidate(task, steps, options, config);
    CHECK(again.source == b.source);
    CHECK(again.result.cache_hit);
    MeasureResult r = run_candidate(task, steps, b.artifact, options);
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::NoError);
  }
  CHECK(state == 13);
}

}  // namespace

TEST_CASE("tvm reference: matmul states compile and match the interpreter") {
  check_workload("matmul", "llvm");
  check_workload("matmul", "c");
  check_workload("matmul", "c", /*default_flags=*/true);
}
TEST_CASE("tvm reference: matmul_add states compile and match the interpreter") {
  check_workload("matmul_add", "llvm");
  check_workload("matmul_add", "c");
  check_workload("matmul_add", "c", /*default_flags=*/true);
}
TEST_CASE("tvm reference: matmul_relu_relu states compile and match the interpreter") {
  check_workload("matmul_relu_relu", "llvm");
  check_workload("matmul_relu_relu", "c");
}
TEST_CASE("tvm reference: conv2d_nchw states compile and match the interpreter") {
  check_workload("conv2d_nchw", "llvm");
  check_workload("conv2d_nchw", "c");
}
TEST_CASE("tvm reference: softmax states compile and match the interpreter") {
  check_workload("softmax", "llvm");
  check_workload("softmax", "c");
}
TEST_CASE("tvm reference: dense_bias_relu states compile and match the interpreter") {
  check_workload("dense_bias_relu", "llvm");
  check_workload("dense_bias_relu", "c");
}
TEST_CASE("tvm reference: batch_matmul states compile and match the interpreter") {
  check_workload("batch_matmul", "llvm");
  check_workload("batch_matmul", "c");
}
