#include "common/registry/builtin_workloads.h"

#include <catch2/catch.hpp>

#include "common/dag/compute_dag.h"
#include "common/ir/printer.h"
#include "common/registry/registry.h"
#include "tests/unit/registry/tvm_reference.h"

using namespace mrd;
using registry::FunctionWorkload;
using registry::Registry;

namespace {

std::vector<std::string> stage_names(const dag::ComputeDAG& d) {
  std::vector<std::string> names;
  for (const auto& op : d.ops()) names.push_back(op->name);
  return names;
}

dag::ComputeDAG build(const std::string& name, std::vector<registry::WorkloadArg> args) {
  return dag::ComputeDAG(Registry::global().instantiate(FunctionWorkload{name, std::move(args)}));
}

}  // namespace

TEST_CASE("the seven tvm-reference workloads print exactly as TVM prints them", "[registry]") {
  auto refs = test::reference_workloads();
  REQUIRE(refs.size() == 7);
  for (const auto& ref : refs) {
    INFO(ref.name);
    REQUIRE(!ref.dag_print.empty());
    dag::ComputeDAG d = build(ref.name, ref.args);
    CHECK(d.print() == ref.dag_print);
  }
}

TEST_CASE("built-in stage orders are TVM's", "[registry]") {
  CHECK(stage_names(
            build("matmul_add", {int64_t{8}, int64_t{4}, int64_t{6}, std::string("float32")})) ==
        std::vector<std::string>{"A", "B", "matmul", "C", "out"});
  CHECK(
      stage_names(build("conv2d_nchw", {int64_t{1}, int64_t{2}, int64_t{5}, int64_t{5}, int64_t{3},
                                        int64_t{3}, int64_t{3}, int64_t{1}, int64_t{1}})) ==
      std::vector<std::string>{"data", "pad_temp", "kernel", "conv2d_nchw"});
  CHECK(stage_names(build("softmax", {int64_t{4}, int64_t{5}})) ==
        std::vector<std::string>{"A", "T_softmax_maxelem", "T_softmax_exp", "T_softmax_expsum",
                                 "T_softmax_norm"});
  CHECK(stage_names(build("dense_bias_relu", {int64_t{4}, int64_t{8}, int64_t{6}})) ==
        std::vector<std::string>{"A", "W", "T_matmul_NT", "bias", "bias_add", "compute"});
  CHECK(stage_names(build("layer_norm", {int64_t{4}, int64_t{8}})) ==
        std::vector<std::string>{"A", "T_layer_norm_sum", "T_layer_norm_sqsum", "gamma", "beta",
                                 "T_layer_norm"});
}

TEST_CASE("built-ins not in the reference set print as topi builds them", "[registry]") {
  dag::ComputeDAG dw =
      build("depthwise_conv2d_nchw",
            {int64_t{1}, int64_t{4}, int64_t{9}, int64_t{9}, int64_t{3}, int64_t{2}, int64_t{1}});
  CHECK(
      dw.print() ==
      "data = PLACEHOLDER [1, 4, 9, 9]\n"
      "PaddedInput(i0, i1, i2, i3) = tir.if_then_else(((((i2 >= 1) && (i2 < 10)) && (i3 >= 1)) "
      "&& (i3 < 10)), data[i0, i1, (i2 - 1), (i3 - 1)], 0f)\n"
      "kernel = PLACEHOLDER [4, 1, 3, 3]\n"
      "DepthwiseConv2d(b, c, i, j) += (PaddedInput[b, c, ((i*2) + di), ((j*2) + dj)]*kernel[c, 0, "
      "di, dj])\n");
  CHECK(dw.tensors().back()->shape == std::vector<int64_t>{1, 4, 5, 5});

  dag::ComputeDAG pool = build("max_pool2d", {int64_t{1}, int64_t{2}, int64_t{8}, int64_t{8},
                                              int64_t{3}, int64_t{2}, int64_t{1}});
  CHECK(
      pool.print() ==
      "data = PLACEHOLDER [1, 2, 8, 8]\n"
      "pad_temp(ax0, ax1, ax2, ax3) = tir.if_then_else(((((ax2 >= 1) && (ax2 < 9)) && (ax3 >= 1)) "
      "&& (ax3 < 9)), data[ax0, ax1, (ax2 - 1), (ax3 - 1)], -3.40282e+38f)\n"
      "pool_max(ax0, ax1, ax2, ax3) max= pad_temp[ax0, ax1, ((ax2*2) + rv0), ((ax3*2) + rv1)]\n");
  CHECK(pool.tensors().back()->shape == std::vector<int64_t>{1, 2, 4, 4});

  // Without padding topi reads the input directly.
  dag::ComputeDAG pool0 = build("max_pool2d", {int64_t{1}, int64_t{2}, int64_t{8}, int64_t{8},
                                               int64_t{2}, int64_t{2}, int64_t{0}});
  CHECK(stage_names(pool0) == std::vector<std::string>{"data", "pool_max"});

  dag::ComputeDAG ln = build("layer_norm", {int64_t{2}, int64_t{64}});
  CHECK(ln.print() ==
        "A = PLACEHOLDER [2, 64]\n"
        "T_layer_norm_sum(i0) += A[i0, k]\n"
        "T_layer_norm_sqsum(i0) += (A[i0, k]*A[i0, k])\n"
        "gamma = PLACEHOLDER [64]\n"
        "beta = PLACEHOLDER [64]\n"
        "T_layer_norm(i0, i1) = ((((A[i0, i1] - (T_layer_norm_sum[i0]/64f))/tir.sqrt((((T_layer_"
        "norm_sqsum[i0]/64f) - ((T_layer_norm_sum[i0]/64f)*(T_layer_norm_sum[i0]/64f))) + 1e-05f)))"
        "*gamma[i1]) + beta[i1])\n");

  dag::ComputeDAG conv_s2 =
      build("conv2d_nchw", {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{7}, int64_t{3}, int64_t{3},
                            int64_t{3}, int64_t{2}, int64_t{0}});
  CHECK(conv_s2.print() ==
        "data = PLACEHOLDER [1, 2, 7, 7]\n"
        "pad_temp(i0, i1, i2, i3) = data[i0, i1, i2, i3]\n"
        "kernel = PLACEHOLDER [3, 2, 3, 3]\n"
        "conv2d_nchw(nn, ff, yy, xx) += (pad_temp[nn, rc, ((yy*2) + ry), ((xx*2) + rx)]*kernel[ff, "
        "rc, ry, rx])\n");
  CHECK(conv_s2.tensors().back()->shape == std::vector<int64_t>{1, 3, 3, 3});

  dag::ComputeDAG bm1 = build("batch_matmul", {int64_t{1}, int64_t{4}, int64_t{5}, int64_t{6}});
  CHECK(ir::op_definition(*bm1.tensors().back().op()) ==
        "T_batch_matmul_NT(b, i, j) += (X[0, i, k]*Y[0, j, k])");
}

TEST_CASE("matmul honours its dtype argument", "[registry]") {
  dag::ComputeDAG d =
      build("matmul_relu_relu", {int64_t{4}, int64_t{4}, int64_t{4}, std::string("int32")});
  CHECK(d.tensors().back()->dtype == ir::DType::Int32);
  CHECK(ir::op_definition(*d.tensors().back().op()) == "E(i, j) = max(D[i, j], 0)");
  dag::ComputeDAG f64 =
      build("matmul", {int64_t{4}, int64_t{4}, int64_t{4}, std::string("float64")});
  CHECK(f64.tensors()[0]->dtype == ir::DType::Float64);
}
