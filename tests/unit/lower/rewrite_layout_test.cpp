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

namespace {

/// `data` (row-major in `shape`'s original layout) in the layout `in` describes, computed
/// here index by index: new element ax is data[sum(ax[i] * source_strides[i])].
std::vector<double> relaid_out(const std::vector<double>& data, const lower::PreTransformedInput& in) {
  int64_t n = 1;
  for (int64_t e : in.shape) n *= e;
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, from = 0;
    for (int i = static_cast<int>(in.shape.size()) - 1; i >= 0; --i) {
      from += (rest % in.shape[i]) * in.source_strides[i];
      rest /= in.shape[i];
    }
    out[static_cast<size_t>(flat)] = data.at(static_cast<size_t>(from));
  }
  return out;
}

}  // namespace

TEST_CASE("rewrite_layout, pre-transformed: dense's weight is an argument in TVM's new layout", "[lower]") {
  // layout_rewrite_option 2 (TVM's Relay integration): no transform stage, the placeholder
  // itself takes the shape that option 1 gives the transform stage, and the steps stay.
  json rec = record("dense_bias_relu", 6);
  dag::ComputeDAG dag = dag_of(rec);
  std::vector<schedule::Step> steps = schedule::steps_from_json(rec["i"][1][1]);
  auto r = lower::rewrite_layout(dag, steps, lower::LayoutRewrite::RewriteForPreTransformed);
  REQUIRE(r.has_value());
  CHECK(transform_op(r->tensors) == nullptr);
  CHECK(r->steps.size() == steps.size());
  REQUIRE(r->pretransformed.size() == 1);
  const lower::PreTransformedInput& in = r->pretransformed[0];
  REQUIRE(in.tensor_index < r->tensors.size());
  const ir::Tensor& w = r->tensors[in.tensor_index];
  CHECK(w->is_placeholder());
  CHECK(w->name == dag.tensors()[in.tensor_index]->name);
  CHECK(w->shape == std::vector<int64_t>{12, 1, 1, 4, 1, 16, 4});
  CHECK(in.shape == w->shape);
  // The tensor list keeps its order: every other tensor is the workload's own.
  REQUIRE(r->tensors.size() == dag.tensors().size());
  for (size_t i = 0; i < r->tensors.size(); ++i) {
    if (i != in.tensor_index && dag.tensors()[i]->is_placeholder()) CHECK(r->tensors[i].op().get() == dag.tensors()[i].op().get());
  }
}

TEST_CASE("rewrite_layout, pre-transformed: states fed re-laid-out weights compute the workload", "[lower]") {
  for (std::string name : {"dense_bias_relu", "batch_matmul"}) {
    for (size_t state : {1, 4, 9, 12}) {
      INFO(name << " state " << state);
      json rec = record(name, state);
      dag::ComputeDAG dag = dag_of(rec);
      std::vector<schedule::Step> steps = schedule::steps_from_json(rec["i"][1][1]);
      auto r = lower::rewrite_layout(dag, steps, lower::LayoutRewrite::RewriteForPreTransformed);
      REQUIRE(r.has_value());
      REQUIRE_FALSE(r->pretransformed.empty());
      ir::PrimFunc f = lower::lower(dag, steps, lower::Backend::LLVM, lower::LayoutRewrite::RewriteForPreTransformed);
      // The workload's inputs; the function gets the rewritten ones re-laid out, as TVM's
      // Relay build passes them, and must compute what the workload computes from the others.
      std::vector<interp::HostTensor> inputs, relaid;
      for (size_t i = 0; i < dag.tensors().size(); ++i) {
        const ir::Tensor& t = dag.tensors()[i];
        if (!t->is_placeholder()) continue;
        inputs.push_back(interp::make_reference_input(*t.op()));
        relaid.push_back(inputs.back());
        for (const lower::PreTransformedInput& in : r->pretransformed) {
          if (in.tensor_index == i) relaid.back().data = relaid_out(inputs.back().data, in);
        }
      }
      std::vector<interp::HostTensor> want = interp::evaluate(dag, inputs);
      std::vector<std::vector<double>> got = lower::testing::run_lowered(dag, f, relaid);
      REQUIRE(got.size() == want.size());
      for (size_t k = 0; k < got.size(); ++k) {
        REQUIRE(got[k].size() == want[k].data.size());
        size_t bad = 0;
        for (size_t e = 0; e < got[k].size(); ++e) bad += !(std::fabs(got[k][e] - want[k].data[e]) <= 1e-4);
        CHECK(bad == 0);
      }
    }
  }
}
