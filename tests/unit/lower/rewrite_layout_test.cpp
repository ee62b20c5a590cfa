// Layout rewrite (layout_rewrite_option 1) on TVM's own dense and batch_matmul states: the
// transform stage has the shape TVM gives it, the steps follow it, and the rewritten function
// computes what the workload computes (its checksums in tests/data/tvm-reference).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/interp/reference_interpreter.h"
#include "common/lower/lower.h"
#include "common/lower/rewrite_layout.h"
#include "common/schedule/transform_steps.h"
#include "common/serialize/serialize.h"
#include "tests/unit/lower/lower_test_util.h"

using namespace mrd;
using nlohmann::json;

namespace {

json record(const std::string& name, size_t state) {
  std::ifstream in(std::string(MEASURERD_TVM_REFERENCE_DIR) + "/" + name + ".records.json");
  std::string line;
  for (size_t i = 0; std::getline(in, line); ++i) {
    if (i == state) return json::parse(line);
  }
  FAIL("no state " << state << " in " << name);
  return {};
}

dag::ComputeDAG dag_of(const json& rec) {
  json k = json::parse(rec["i"][0][0].get<std::string>());
  std::vector<registry::WorkloadArg> args;
  for (size_t i = 1; i < k.size(); ++i) {
    if (k[i].is_string()) args.emplace_back(k[i].get<std::string>());
    else args.emplace_back(k[i].get<int64_t>());
  }
  return lower::testing::builtin_dag(k[0].get<std::string>(), args);
}

const ir::OperationNode* transform_op(const std::vector<ir::Tensor>& tensors) {
  const ir::OperationNode* found = nullptr;
  dag::ComputeDAG d(tensors);
  for (const ir::Operation& op : d.ops()) {
    if (op->name == "auto_scheduler_layout_transform") found = op.get();
  }
  return found;
}

}  // namespace

TEST_CASE("rewrite_layout: dense's weight takes the layout TVM gives it", "[lower]") {
  // The reference README's example: dense_bias_relu state 6 reads the 48x64 W as this tensor.
  json rec = record("dense_bias_relu", 6);
  dag::ComputeDAG dag = dag_of(rec);
  std::vector<schedule::Step> steps = schedule::steps_from_json(rec["i"][1][1]);
  auto r = lower::rewrite_layout(dag, steps);
  REQUIRE(r.has_value());
  const ir::OperationNode* t = transform_op(r->tensors);
  REQUIRE(t != nullptr);
  CHECK(t->shape == std::vector<int64_t>{12, 1, 1, 4, 1, 16, 4});
  // Two steps more (fuse the outer three, parallel), every stage id from the consumer on +1.
  REQUIRE(r->steps.size() == steps.size() + 2);
  CHECK(schedule::step_stage_id(r->steps.back()) == 2);
  CHECK(schedule::step_stage_id(r->steps[0]) == schedule::step_stage_id(steps[0]) + 1);
}

TEST_CASE("rewrite_layout: a dense sent as a DAG archive keeps its layout-free weight and rewrites alike", "[lower]") {
  // What a TVM user's inline topi dense becomes: the op's layout_free_placeholders travel in
  // the archive (format version 2), so the rewrite TVM applies happens here too.
  json rec = record("dense_bias_relu", 6);
  dag::ComputeDAG builtin = dag_of(rec);
  std::vector<schedule::Step> steps = schedule::steps_from_json(rec["i"][1][1]);
  std::string bytes = serialize::dag_to_binary(builtin.tensors());
  std::string text = serialize::dag_to_json(builtin.tensors());
  for (const auto& tensors : {serialize::dag_from_binary(bytes), serialize::dag_from_json(text)}) {
    auto r = lower::rewrite_layout(dag::ComputeDAG(tensors), steps);
    REQUIRE(r.has_value());
    const ir::OperationNode* t = transform_op(r->tensors);
    REQUIRE(t != nullptr);
    CHECK(t->shape == std::vector<int64_t>{12, 1, 1, 4, 1, 16, 4});
  }
}

TEST_CASE("rewrite_layout: the initial state and workloads without layout-free inputs are unchanged", "[lower]") {
  CHECK_FALSE(lower::rewrite_layout(dag_of(record("dense_bias_relu", 0)), {}).has_value());
  json mm = record("matmul", 3);
  CHECK_FALSE(lower::rewrite_layout(dag_of(mm), schedule::steps_from_json(mm["i"][1][1])).has_value());
}

TEST_CASE("rewrite_layout: rewritten dense and batch_matmul states compute the workload", "[lower]") {
  for (std::string name : {"dense_bias_relu", "batch_matmul"}) {
    std::ifstream cin(std::string(MEASURERD_TVM_REFERENCE_DIR) + "/" + name + ".check.json");
    json check = json::parse(cin);
    for (size_t state : {1, 4, 9, 12}) {
      INFO(name << " state " << state);
      json rec = record(name, state);
      dag::ComputeDAG dag = dag_of(rec);
      std::vector<schedule::Step> steps = schedule::steps_from_json(rec["i"][1][1]);
      ir::PrimFunc f = lower::lower(dag, steps, lower::Backend::LLVM, lower::LayoutRewrite::InsertTransformStage);
      std::vector<interp::HostTensor> inputs;
      for (const ir::Tensor& t : dag.tensors()) {
        if (t->is_placeholder()) inputs.push_back(interp::make_reference_input(*t.op()));
      }
      std::vector<std::vector<double>> outs = lower::testing::run_lowered(dag, f, inputs);
      REQUIRE(!outs.empty());
      double sum = 0;
      for (double v : outs.back()) sum += v;
      CHECK(std::fabs(sum - check["output_sum"].get<double>()) < 1e-4);
    }
  }
}
