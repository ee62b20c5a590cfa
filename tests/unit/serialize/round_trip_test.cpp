#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/dag/compute_dag.h"
#include "common/serialize/serialize.h"
#include "tests/unit/serialize/dag_compare.h"
#include "tests/unit/serialize/dag_samples.h"

using namespace mrd;
using namespace mrd::serialize;
using namespace mrd::serialize::testing;

namespace {

std::vector<std::pair<const char*, std::vector<ir::Tensor>>> samples() {
  return {{"matmul", matmul_dag()},
          {"matmul+add", matmul_add_dag()},
          {"conv2d with padding", conv2d_dag()},
          {"softmax", softmax_dag()},
          {"mixed dtypes", mixed_dtype_dag()},
          {"int8 and uint8", quantized_dag()},
          {"math calls", math_calls_dag()},
          {"integer calls", integer_calls_dag()},
          {"dense with a layout-free weight", dense_dag()}};
}

void check_same_dag(const std::vector<ir::Tensor>& original,
                    const std::vector<ir::Tensor>& loaded) {
  CHECK(dag_difference(original, loaded).empty());
  CHECK(dag::ComputeDAG(original).print() == dag::ComputeDAG(loaded).print());
  for (size_t i = 0; i < original.size(); ++i) CHECK_FALSE(original[i].same_as(loaded[i]));
}

}  // namespace

TEST_CASE("binary archives round-trip every sample DAG", "[serialize]") {
  for (auto& [name, dag] : samples()) {
    INFO(name);
    check_same_dag(dag, dag_from_binary(dag_to_binary(dag)));
  }
}

TEST_CASE("JSON archives round-trip every sample DAG", "[serialize]") {
  for (auto& [name, dag] : samples()) {
    INFO(name);
    std::string text = dag_to_json(dag);
    check_same_dag(dag, dag_from_json(text));
    // Writing what was read gives the same text: nothing is lost or reordered.
    CHECK(dag_to_json(dag_from_json(text)) == text);
  }
}

TEST_CASE("binary archives are stable under a second round trip", "[serialize]") {
  for (auto& [name, dag] : samples()) {
    INFO(name);
    std::string bytes = dag_to_binary(dag);
    CHECK(dag_to_binary(dag_from_binary(bytes)) == bytes);
    CHECK(bytes.substr(0, 6) == "MRDDAG");
  }
}

TEST_CASE("the comparison used by these tests notices differences", "[serialize]") {
  // Same printout shape, different constants and a different sharing pattern.
  auto a = matmul_dag();
  auto b = matmul_dag();
  CHECK(dag_difference(a, b).empty());
  ir::Tensor X = ir::placeholder({4}, "X");
  ir::Tensor Y1 = ir::compute(
      {4}, [&](ir::Var i) { return X(i) + 1.0f; }, "Y");
  ir::Tensor Y2 = ir::compute(
      {4}, [&](ir::Var i) { return X(i) + 2.0f; }, "Y");
  CHECK_FALSE(dag_difference({X, Y1}, {X, Y2}).empty());
  // Shared vs. separate copies of the same placeholder.
  ir::Tensor X2 = ir::placeholder({4}, "X");
  ir::Tensor Z = ir::compute(
      {4}, [&](ir::Var i) { return X2(i) + 1.0f; }, "Y");
  CHECK_FALSE(dag_difference({X, Y1}, {X, Z}).empty());
}

TEST_CASE("float and integer extremes survive both forms exactly", "[serialize]") {
  ir::Tensor A = ir::placeholder({3}, "A", ir::DType::Float64);
  ir::Tensor L = ir::placeholder({3}, "L", ir::DType::Int64);
  ir::Tensor B = ir::compute(
      {3},
      [&](ir::Var i) {
        ir::Expr tiny = ir::FloatImmNode::make(ir::DType::Float64, 4.9406564584124654e-324);
        ir::Expr third = ir::FloatImmNode::make(ir::DType::Float64, 1.0 / 3.0);
        ir::Expr big = ir::IntImmNode::make(ir::DType::Int64, INT64_MIN);
        return A(i) * third + tiny + ir::cast(ir::DType::Float64, L(i) + big);
      },
      "B");
  std::vector<ir::Tensor> dag{A, L, B};
  CHECK(dag_difference(dag, dag_from_binary(dag_to_binary(dag))).empty());
  CHECK(dag_difference(dag, dag_from_json(dag_to_json(dag))).empty());
}

TEST_CASE("a compute's layout-free inputs make a version 2 archive, a DAG without them a version 1 one", "[serialize]") {
  std::string plain = dag_to_binary(matmul_dag());
  CHECK(plain[6] == 1);
  CHECK(nlohmann::json::parse(dag_to_json(matmul_dag()))["version"] == 1);
  CHECK(dag_to_json(matmul_dag()).find("layout_free") == std::string::npos);

  std::vector<ir::Tensor> dense = dense_dag();
  std::string bytes = dag_to_binary(dense);
  CHECK(bytes[6] == 2);
  nlohmann::json j = nlohmann::json::parse(dag_to_json(dense));
  CHECK(j["version"] == 2);
  auto check_layout_free = [](const std::vector<ir::Tensor>& loaded) {
    const ir::Operation& c = loaded.at(2).op();
    REQUIRE(c->layout_free_placeholders.size() == 1);
    // The very placeholder that is the workload's second input, not a copy of it.
    CHECK(c->layout_free_placeholders[0] == loaded.at(1).op());
  };
  check_layout_free(dag_from_binary(bytes));
  check_layout_free(dag_from_json(j.dump()));
}
