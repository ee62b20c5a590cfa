#include "common/registry/registry.h"

#include <catch2/catch.hpp>

#include "common/dag/compute_dag.h"
#include "common/dag/workload_key.h"
#include "common/ir/te.h"
#include "common/registry/python_json.h"
#include "common/util/error.h"

using namespace mrd;
using namespace mrd::registry;
using Catch::Matchers::Contains;

namespace {
std::vector<WorkloadArg> args(std::initializer_list<WorkloadArg> a) {
  return a;
}
}  // namespace

TEST_CASE("the global registry knows every built-in", "[registry]") {
  std::vector<std::string> names = Registry::global().function_names();
  for (const char* n :
       {"matmul", "matmul_add", "matmul_relu_relu", "batch_matmul", "dense_bias_relu",
        "conv2d_nchw", "depthwise_conv2d_nchw", "softmax", "layer_norm", "max_pool2d"}) {
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  }
}

TEST_CASE("an unknown function is a UserError listing the known names", "[registry]") {
  FunctionWorkload w{"no_such_op", {}};
  CHECK_THROWS_AS(Registry::global().instantiate(w), UserError);
  CHECK_THROWS_WITH(Registry::global().instantiate(w),
                    Contains("no_such_op") && Contains("matmul") && Contains("softmax") &&
                        Contains("conv2d_nchw"));
}

TEST_CASE("bad arguments are a UserError saying what was expected", "[registry]") {
  Registry& r = Registry::global();
  CHECK_THROWS_WITH(r.instantiate(FunctionWorkload{"matmul", args({int64_t{4}, int64_t{4}})}),
                    Contains("(N, L, M, dtype)") && Contains("4 arguments, got 2"));
  CHECK_THROWS_WITH(
      r.instantiate(FunctionWorkload{
          "matmul", args({int64_t{4}, std::string("x"), int64_t{4}, std::string("float32")})}),
      Contains("an integer as argument 2"));
  CHECK_THROWS_WITH(
      r.instantiate(FunctionWorkload{
          "matmul", args({int64_t{4}, int64_t{4}, int64_t{4}, std::string("float16")})}),
      Contains("float16"));
  CHECK_THROWS_AS(r.instantiate(FunctionWorkload{"softmax", args({int64_t{0}, int64_t{4}})}),
                  UserError);
  CHECK_THROWS_AS(r.instantiate(FunctionWorkload{"softmax", args({int64_t{-3}, int64_t{4}})}),
                  UserError);
  CHECK_THROWS_AS(r.instantiate(FunctionWorkload{"softmax", args({2.5, int64_t{4}})}), UserError);
  // A kernel larger than the padded input.
  CHECK_THROWS_WITH(
      r.instantiate(FunctionWorkload{
          "conv2d_nchw", args({int64_t{1}, int64_t{1}, int64_t{2}, int64_t{2}, int64_t{1},
                               int64_t{5}, int64_t{5}, int64_t{1}, int64_t{0}})}),
      Contains("kernel"));
}

TEST_CASE("functions and tensor lists can be registered", "[registry]") {
  Registry r;
  CHECK(r.function_names().empty());
  r.register_function("twice", [](const std::vector<WorkloadArg>& a) {
    int64_t n = std::get<int64_t>(a.at(0));
    ir::Tensor x = ir::placeholder({n}, "x");
    ir::Tensor y = ir::compute({n}, [&](ir::Var i) { return x(i) * 2.0f; }, "y", {"i"});
    return std::vector<ir::Tensor>{x, y};
  });
  CHECK(r.function_names() == std::vector<std::string>{"twice"});
  auto t = r.instantiate(FunctionWorkload{"twice", {int64_t{5}}});
  REQUIRE(t.size() == 2);
  CHECK(t[1]->shape == std::vector<int64_t>{5});

  std::string key = r.register_tensors(t);
  CHECK(key == dag::tensor_workload_key(t));
  auto back = r.instantiate(TensorWorkload{key, {}});
  REQUIRE(back.size() == 2);
  CHECK(back[1].same_as(t[1]));
  CHECK(workload_key(TensorWorkload{"", t}) == key);
  r.clear_tensor_entries();
  CHECK_THROWS_WITH(r.instantiate(TensorWorkload{key, {}}), Contains("unknown workload key"));
  // A tensor workload that carries its tensors needs no registration.
  CHECK(r.instantiate(TensorWorkload{key, t})[1].same_as(t[1]));
}

TEST_CASE("function workload keys are Python's json.dumps", "[registry]") {
  CHECK(workload_key(FunctionWorkload{
            "matmul", args({int64_t{512}, int64_t{512}, int64_t{512}, std::string("float32")})}) ==
        "[\"matmul\", 512, 512, 512, \"float32\"]");
  CHECK(function_workload_key("f", {}) == "[\"f\"]");
  CHECK(function_workload_key("f", args({int64_t{-3}, 1.0, 0.5, std::string("a\"b")})) ==
        "[\"f\", -3, 1.0, 0.5, \"a\\\"b\"]");
  // Python's float repr, as json.dumps prints it.
  CHECK(python_json_float(1e-5) == "1e-05");
  CHECK(python_json_float(1e16) == "1e+16");
  CHECK(python_json_float(1e15) == "1000000000000000.0");
  CHECK(python_json_float(0.1) == "0.1");
  CHECK(python_json_float(1e-4) == "0.0001");
  CHECK(python_json_float(0.00012) == "0.00012");
  CHECK(python_json_float(123.456) == "123.456");
  CHECK(python_json_float(-2.5) == "-2.5");
  CHECK(python_json_float(123456789012345678.0) == "1.2345678901234568e+17");
  CHECK(python_json_float(1.5e300) == "1.5e+300");
  CHECK(python_json_float(2.5e-300) == "2.5e-300");
  CHECK(python_json_float(0.0) == "0.0");
  CHECK(python_json_float(1.0 / 3) == "0.3333333333333333");
  CHECK(python_json_string("caf\xc3\xa9\n") == "\"caf\\u00e9\\n\"");
  CHECK(python_json_string("\xf0\x9f\x98\x80") == "\"\\ud83d\\ude00\"");
}
