#include "common/registry/workload_codec.h"

#include <catch2/catch.hpp>
#include <random>

#include "common/dag/compute_dag.h"
#include "common/dag/structural_hash.h"
#include "common/dag/workload_key.h"
#include "common/registry/registry.h"

using namespace mrd;
using namespace mrd::registry;
using serialize::DecodeErrc;
using serialize::DecodeError;

namespace {

/// Small arguments for every built-in.
std::vector<FunctionWorkload> every_builtin() {
  auto i = [](int64_t v) { return WorkloadArg(v); };
  return {
      {"matmul", {i(8), i(4), i(6), std::string("float32")}},
      {"matmul_add", {i(8), i(4), i(6), std::string("float32")}},
      {"matmul_relu_relu", {i(8), i(4), i(6), std::string("int64")}},
      {"batch_matmul", {i(2), i(3), i(4), i(5)}},
      {"dense_bias_relu", {i(3), i(4), i(5)}},
      {"conv2d_nchw", {i(1), i(2), i(6), i(6), i(3), i(3), i(3), i(1), i(1)}},
      {"depthwise_conv2d_nchw", {i(1), i(2), i(6), i(6), i(3), i(2), i(1)}},
      {"softmax", {i(3), i(7)}},
      {"layer_norm", {i(3), i(7)}},
      {"max_pool2d", {i(1), i(2), i(6), i(6), i(3), i(2), i(1)}},
  };
}

/// Every placeholder that some op reads is the very placeholder in the tensor list.
bool placeholders_shared(const std::vector<ir::Tensor>& tensors) {
  dag::ComputeDAG d(tensors);
  for (const auto& op : d.ops()) {
    if (!op->is_placeholder()) continue;
    bool listed = false;
    for (const auto& t : tensors) listed |= t.op() == op;
    if (!listed) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("every built-in survives the binary and JSON round trips", "[registry][serialize]") {
  CHECK(every_builtin().size() == Registry::global().function_names().size());
  for (const FunctionWorkload& f : every_builtin()) {
    INFO(f.name);
    std::vector<ir::Tensor> tensors = Registry::global().instantiate(f);
    std::string hash = dag::structural_hash(tensors);
    std::string key = dag::tensor_workload_key(tensors);

    // As a tensor workload, in binary.
    Workload back = workload_from_binary(workload_to_binary(TensorWorkload{key, tensors}));
    const auto& tb = std::get<TensorWorkload>(back);
    CHECK(tb.key == key);
    CHECK(dag::structural_equal(tb.tensors, tensors));
    CHECK(dag::structural_hash(tb.tensors) == hash);
    CHECK(placeholders_shared(tb.tensors));
    CHECK(dag::ComputeDAG(tb.tensors).print() == dag::ComputeDAG(tensors).print());

    // As a tensor workload, in JSON (through its text).
    nlohmann::json j = nlohmann::json::parse(workload_to_json(TensorWorkload{key, tensors}).dump());
    const auto tj = std::get<TensorWorkload>(workload_from_json(j));
    CHECK(tj.key == key);
    CHECK(dag::structural_equal(tj.tensors, tensors));
    CHECK(dag::structural_hash(tj.tensors) == hash);
    CHECK(placeholders_shared(tj.tensors));

    // The DAG archive directly.
    auto direct = serialize::dag_from_binary(serialize::dag_to_binary(tensors));
    CHECK(dag::structural_equal(direct, tensors));
    CHECK(dag::structural_hash(direct) == hash);
    auto direct_json = serialize::dag_from_json(serialize::dag_to_json(tensors));
    CHECK(dag::structural_equal(direct_json, tensors));
    CHECK(dag::structural_hash(direct_json) == hash);

    // As a function workload: only (name, args) travels; the receiver rebuilds it.
    Workload fb = workload_from_binary(workload_to_binary(f));
    const auto& fbf = std::get<FunctionWorkload>(fb);
    CHECK(fbf.name == f.name);
    CHECK(fbf.args == f.args);
    CHECK(dag::structural_hash(Registry::global().instantiate(fb)) == hash);
    Workload fj = workload_from_json(workload_to_json(f));
    CHECK(std::get<FunctionWorkload>(fj).args == f.args);
    CHECK(workload_key(fj) == workload_key(f));
  }
}

TEST_CASE("a function workload's bytes hold only its name and arguments", "[registry][serialize]") {
  FunctionWorkload f{"some_function", {int64_t{-7}, 0.25, std::string("float32")}};
  std::string bytes = workload_to_binary(f);
  // magic 4, version 1, kind 1, name 4+13, count 4, args (1+8) + (1+8) + (1+4+7)
  CHECK(bytes.size() == 4 + 1 + 1 + 17 + 4 + 9 + 9 + 12);
  auto back = std::get<FunctionWorkload>(workload_from_binary(bytes));
  CHECK(back.name == "some_function");
  CHECK(back.args == f.args);
}

TEST_CASE("task-file JSON is read as documented", "[registry][serialize]") {
  auto w = workload_from_json(
      nlohmann::json::parse(R"({"function": "matmul", "args": [512, 512, 512, "float32"]})"));
  CHECK(workload_key(w) == "[\"matmul\", 512, 512, 512, \"float32\"]");

  auto tensors =
      Registry::global().instantiate(FunctionWorkload{"softmax", {int64_t{2}, int64_t{3}}});
  nlohmann::json dag_only = {{"dag", nlohmann::json::parse(serialize::dag_to_json(tensors))}};
  auto t = std::get<TensorWorkload>(workload_from_json(dag_only));
  CHECK(t.key == dag::tensor_workload_key(tensors));
}

TEST_CASE("malformed workload bytes are a DecodeError, never a crash", "[registry][serialize]") {
  auto tensors = Registry::global().instantiate(
      FunctionWorkload{"matmul_add", {int64_t{3}, int64_t{2}, int64_t{4}, std::string("float32")}});
  std::string tensor_bytes = workload_to_binary(TensorWorkload{"", tensors});
  std::string func_bytes =
      workload_to_binary(FunctionWorkload{"matmul", {int64_t{4}, 2.0, std::string("float32")}});

  // Every truncation.
  for (const std::string* full : {&tensor_bytes, &func_bytes}) {
    for (size_t n = 0; n < full->size(); ++n) {
      INFO(n);
      CHECK_THROWS_AS(workload_from_binary(std::string_view(*full).substr(0, n)), DecodeError);
    }
  }

  auto code_of = [](const std::string& bytes) {
    try {
      workload_from_binary(bytes);
    } catch (const DecodeError& e) {
      return e.code();
    }
    FAIL("decoded without error");
    return DecodeErrc::Malformed;
  };
  std::string bad = func_bytes;
  bad[0] = 'X';
  CHECK(code_of(bad) == DecodeErrc::BadMagic);
  bad = func_bytes;
  bad[4] = 9;
  CHECK(code_of(bad) == DecodeErrc::BadVersion);
  bad = func_bytes;
  bad[5] = 7;
  CHECK(code_of(bad) == DecodeErrc::Malformed);
  CHECK(code_of(func_bytes + "x") == DecodeErrc::Malformed);
  // A name length of 4 GiB is refused before anything is allocated.
  bad = func_bytes;
  bad[6] = bad[7] = bad[8] = bad[9] = '\xff';
  CHECK(code_of(bad) == DecodeErrc::TooLarge);
  // An argument count beyond the limit.
  bad = func_bytes;
  size_t count_at = 6 + 4 + 6;
  bad[count_at] = bad[count_at + 1] = '\xff';
  CHECK(code_of(bad) == DecodeErrc::TooLarge);
  // An unknown argument tag.
  bad = func_bytes;
  bad[count_at + 4] = 42;
  CHECK(code_of(bad) == DecodeErrc::Malformed);

  // Random corruption: either a workload or a DecodeError, never another failure.
  std::mt19937 gen(7);
  for (const std::string* full : {&tensor_bytes, &func_bytes}) {
    for (int round = 0; round < 500; ++round) {
      std::string b = *full;
      for (int flips = 1 + round % 3; flips > 0; --flips) {
        b[gen() % b.size()] = static_cast<char>(gen());
      }
      try {
        workload_from_binary(b);
      } catch (const DecodeError&) {
      }
    }
  }
}

TEST_CASE("malformed workload JSON is a DecodeError", "[registry][serialize]") {
  using nlohmann::json;
  CHECK_THROWS_AS(workload_from_json(json::array()), DecodeError);
  CHECK_THROWS_AS(workload_from_json(json::object()), DecodeError);
  CHECK_THROWS_AS(workload_from_json(json{{"function", 3}}), DecodeError);
  CHECK_THROWS_AS(workload_from_json(json{{"function", ""}}), DecodeError);
  CHECK_THROWS_AS(workload_from_json(json{{"function", "f"}, {"args", 3}}), DecodeError);
  CHECK_THROWS_AS(workload_from_json(json{{"function", "f"}, {"args", {json::object()}}}),
                  DecodeError);
  CHECK_THROWS_AS(workload_from_json(json{{"dag", "not a dag"}}), DecodeError);
  CHECK_THROWS_AS(workload_from_json(json{{"dag", json::object()}}), DecodeError);
}
