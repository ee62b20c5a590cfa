#include "common/interp/reference_interpreter.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "common/ir/te.h"
#include "common/registry/builtin_workloads.h"
#include "common/registry/registry.h"
#include "common/util/error.h"
#include "tests/unit/registry/tvm_reference.h"

using namespace mrd;
using namespace mrd::ir;
using Catch::Matchers::Contains;
using interp::HostTensor;
namespace builtin = mrd::registry::builtin;

namespace {

HostTensor tensor(std::vector<int64_t> shape, std::vector<double> data, DType t = DType::Float32) {
  return HostTensor{t, std::move(shape), std::move(data)};
}

std::vector<HostTensor> reference_inputs(const dag::ComputeDAG& d) {
  std::vector<HostTensor> in;
  for (const Tensor& t : d.tensors()) {
    if (t->is_placeholder()) in.push_back(interp::make_reference_input(*t.op()));
  }
  return in;
}

}  // namespace

TEST_CASE("matmul by hand", "[interp]") {
  dag::ComputeDAG d(builtin::matmul(2, 3, 2, DType::Float32));
  // [[1 2 3] [4 5 6]] x [[7 8] [9 10] [11 12]] = [[58 64] [139 154]]
  auto out = interp::evaluate(
      d, {tensor({2, 3}, {1, 2, 3, 4, 5, 6}), tensor({3, 2}, {7, 8, 9, 10, 11, 12})});
  REQUIRE(out.size() == 1);
  CHECK(out[0].shape == std::vector<int64_t>{2, 2});
  CHECK(out[0].data == std::vector<double>{58, 64, 139, 154});
}

TEST_CASE("conv2d with zero padding by hand", "[interp]") {
  dag::ComputeDAG d(builtin::conv2d_nchw(1, 1, 3, 3, 1, 3, 3, 1, 1));
  // A 3x3 kernel of ones sums each 3x3 neighbourhood of 1..9, zeros outside.
  auto out = interp::evaluate(d, {tensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                                  tensor({1, 1, 3, 3}, std::vector<double>(9, 1.0))});
  REQUIRE(out.size() == 1);
  CHECK(out[0].data == std::vector<double>{12, 21, 16, 27, 45, 33, 24, 39, 28});

  // Stride 2, padding 1 on a 4x4 input: outputs at (0,0), (0,2), (2,0), (2,2) of the above
  // kind of sums, with an identity kernel (only the centre is one) giving the input back.
  dag::ComputeDAG d2(builtin::conv2d_nchw(1, 1, 4, 4, 1, 3, 3, 2, 1));
  std::vector<double> centre(9, 0.0);
  centre[4] = 1;
  std::vector<double> in16;
  for (int i = 0; i < 16; ++i) in16.push_back(i);
  auto out2 = interp::evaluate(d2, {tensor({1, 1, 4, 4}, in16), tensor({1, 1, 3, 3}, centre)});
  CHECK(out2[0].shape == std::vector<int64_t>{1, 1, 2, 2});
  CHECK(out2[0].data == std::vector<double>{0, 2, 8, 10});
}

TEST_CASE("softmax by hand", "[interp]") {
  dag::ComputeDAG d(builtin::softmax(2, 2));
  auto out = interp::evaluate(d, {tensor({2, 2}, {0.0, std::log(3.0), 5.0, 5.0})});
  REQUIRE(out.size() == 1);
  CHECK(out[0].data[0] == Approx(0.25).margin(1e-7));
  CHECK(out[0].data[1] == Approx(0.75).margin(1e-7));
  CHECK(out[0].data[2] == 0.5);
  CHECK(out[0].data[3] == 0.5);
}

TEST_CASE("layer_norm by hand", "[interp]") {
  dag::ComputeDAG d(builtin::layer_norm(2, 2));
  // Row [1, 3]: mean 2, var E[x^2] - mean^2 = 5 - 4 = 1; (x - 2) / sqrt(1 + 1e-5).
  // Row [2, 2]: var 0, so 0 / sqrt(1e-5) = 0, then * gamma + beta = beta.
  auto out = interp::evaluate(
      d, {tensor({2, 2}, {1, 3, 2, 2}), tensor({2}, {2, 1}), tensor({2}, {0.5, -1})});
  REQUIRE(out.size() == 1);
  double s = 1.0 / std::sqrt(1.0 + 1e-5);
  CHECK(out[0].data[0] == Approx(-s * 2 + 0.5).margin(1e-6));
  CHECK(out[0].data[1] == Approx(s * 1 - 1).margin(1e-6));
  CHECK(out[0].data[2] == 0.5);
  CHECK(out[0].data[3] == -1);
}

TEST_CASE("max_pool2d pads with the lowest value", "[interp]") {
  dag::ComputeDAG d(builtin::max_pool2d(1, 1, 2, 2, 3, 1, 1));
  auto out = interp::evaluate(d, {tensor({1, 1, 2, 2}, {-4, -3, -2, -1})});
  CHECK(out[0].data == std::vector<double>{-1, -1, -1, -1});
}

TEST_CASE("the seven tvm-reference workloads reproduce TVM's check numbers", "[interp]") {
  auto refs = test::reference_workloads();
  REQUIRE(refs.size() == 7);
  for (const auto& ref : refs) {
    INFO(ref.name);
    nlohmann::json check = test::reference_check(ref.name);
    // The check file's arguments are the ones the numbers were made with.
    std::vector<registry::WorkloadArg> args;
    for (const auto& a : check.at("args")) {
      if (a.is_string()) {
        args.emplace_back(a.get<std::string>());
      } else {
        args.emplace_back(a.get<int64_t>());
      }
    }
    dag::ComputeDAG d(registry::Registry::global().instantiate(
        registry::FunctionWorkload{check.at("workload").get<std::string>(), args}));
    auto out = interp::evaluate(d, reference_inputs(d));
    REQUIRE(out.size() == 1);
    CHECK(out[0].shape == check.at("output_shape").get<std::vector<int64_t>>());
    double sum = 0;
    for (double v : out[0].data) sum += v;
    CHECK(std::abs(sum - check.at("output_sum").get<double>()) < 1e-4);
    for (const auto& [index, value] : check.at("samples").items()) {
      INFO("sample " << index);
      CHECK(std::abs(out[0].data.at(std::stoul(index)) - value.get<double>()) < 1e-5);
    }
  }
}

TEST_CASE("float32 results are rounded to float32", "[interp]") {
  Tensor a = placeholder({1}, "A");
  Tensor b = compute({1}, [&](Var i) { return a(i) / 3.0f; }, "B", {"i"});
  Tensor a64 = placeholder({1}, "A", DType::Float64);
  Tensor b64 = compute({1}, [&](Var i) { return a64(i) / 3.0; }, "B", {"i"});
  auto f32 = interp::evaluate(dag::ComputeDAG({a, b}), {tensor({1}, {1.0})});
  auto f64 = interp::evaluate(dag::ComputeDAG({a64, b64}), {tensor({1}, {1.0}, DType::Float64)});
  CHECK(f32[0].data[0] == static_cast<double>(1.0f / 3.0f));
  CHECK(f64[0].data[0] == 1.0 / 3.0);
}

TEST_CASE("integer semantics are exact", "[interp]") {
  Tensor a = placeholder({4}, "A", DType::Int32);
  auto run = [&](const std::function<Expr(Expr)>& f) {
    Tensor b = compute({4}, [&](Var i) { return f(a(i)); }, "B", {"i"});
    return interp::evaluate(dag::ComputeDAG({a, b}), {tensor({4}, {7, -7, 6, -1}, DType::Int32)})[0]
        .data;
  };
  CHECK(run([](Expr x) { return floordiv(x, 2); }) == std::vector<double>{3, -4, 3, -1});
  CHECK(run([](Expr x) { return floormod(x, 2); }) == std::vector<double>{1, 1, 0, 1});
  CHECK(run([](Expr x) { return x / 2; }) == std::vector<double>{3, -3, 3, 0});
  CHECK(run([](Expr x) { return floordiv(x, -2); }) == std::vector<double>{-4, 3, -3, 0});
  // int32 wraps.
  CHECK(run([](Expr x) { return x * 1000000000; })[0] == static_cast<double>(int32_t(-1589934592)));
  CHECK_THROWS_WITH(run([](Expr x) { return x / (x - x); }), Contains("division by zero"));
  // Integer reductions use the integer identities.
  IterVar k = reduce_axis(0, 4, "k");
  Tensor mx = compute({1}, [&](Var) { return max(a(k), std::vector<IterVar>{k}); }, "M", {"i"});
  auto m =
      interp::evaluate(dag::ComputeDAG({a, mx}), {tensor({4}, {-7, -9, -8, -10}, DType::Int32)});
  CHECK(m[0].data[0] == -7);
}

TEST_CASE("if_then_else and select read only the chosen branch", "[interp]") {
  Tensor a = placeholder({4}, "A");
  Tensor b = compute({6}, [&](Var i) { return if_then_else(i < 4, a(i), 0.0f); }, "B", {"i"});
  Tensor c = compute({6}, [&](Var i) { return select(i >= 4, 1.0f, a(i)); }, "C", {"i"});
  auto out = interp::evaluate(dag::ComputeDAG({a, b, c}), {tensor({4}, {1, 2, 3, 4})});
  CHECK(out[0].data == std::vector<double>{1, 2, 3, 4, 0, 0});
  CHECK(out[1].data == std::vector<double>{1, 2, 3, 4, 1, 1});
}

TEST_CASE("an out-of-bounds read is a UserError naming the tensor", "[interp]") {
  Tensor a = placeholder({4}, "Input");
  Tensor b = compute({4}, [&](Var i) { return a(i + 1); }, "B", {"i"});
  CHECK_THROWS_AS(interp::evaluate(dag::ComputeDAG({a, b}), {tensor({4}, {1, 2, 3, 4})}),
                  UserError);
  CHECK_THROWS_WITH(interp::evaluate(dag::ComputeDAG({a, b}), {tensor({4}, {1, 2, 3, 4})}),
                    Contains("Input") && Contains("out of bounds"));
}

TEST_CASE("inputs are checked against the placeholders", "[interp]") {
  dag::ComputeDAG d(builtin::matmul(2, 3, 2, DType::Float32));
  CHECK_THROWS_AS(interp::evaluate(d, {tensor({2, 3}, std::vector<double>(6))}), UserError);
  CHECK_THROWS_AS(interp::evaluate(d, {tensor({2, 3}, std::vector<double>(6)),
                                       tensor({2, 3}, std::vector<double>(6))}),
                  UserError);
  // A read placeholder that is not among the workload's tensors (the seed's broken DAG).
  auto t = builtin::matmul(2, 2, 2, DType::Float32);
  t[0] = placeholder({2, 2}, "A");
  CHECK_THROWS_WITH(interp::evaluate(dag::ComputeDAG(t), {tensor({2, 2}, std::vector<double>(4)),
                                                          tensor({2, 2}, std::vector<double>(4))}),
                    Contains("placeholder A"));
}

TEST_CASE("make_input is deterministic and uniform between 1 and 10", "[interp]") {
  Tensor a = placeholder({1000}, "A");
  Tensor n = placeholder({1000}, "N", DType::Int64);
  HostTensor x = interp::make_input(*a.op(), 42);
  HostTensor y = interp::make_input(*a.op(), 42);
  HostTensor z = interp::make_input(*a.op(), 43);
  CHECK(x.data == y.data);
  CHECK(x.data != z.data);
  double lo = 100, hi = -100;
  for (double v : x.data) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    CHECK(v == static_cast<double>(static_cast<float>(v)));
  }
  CHECK(lo >= 1.0);
  CHECK(lo < 1.1);
  CHECK(hi < 10.0);
  CHECK(hi > 9.9);
  HostTensor ints = interp::make_input(*n.op(), 1);
  for (double v : ints.data) CHECK((v >= 1 && v <= 9 && v == std::floor(v)));

  HostTensor r = interp::make_reference_input(*a.op());
  CHECK(r.data[0] == -0.5);
  CHECK(r.data[1] == static_cast<double>(static_cast<float>(0.919 - 0.5)));
}

TEST_CASE("a conv2d in a blocked layout (NCHWc) adds in the order of its domain", "[interp]") {
  // TOPI's conv2d_NCHWc: channel ic of the input is at [ic // 4][...][ic % 4]. Lanes cover
  // these indices; float32 rounding after each addition makes any other order show.
  const int64_t ic_n = 8, bn = 4, hw = 5, oc_chunks = 2, oc_bn = 3;
  Tensor data = placeholder({1, ic_n / bn, hw, hw, bn}, "data");
  Tensor kernel = placeholder({oc_chunks, ic_n / bn, 3, 3, bn, oc_bn}, "kernel");
  IterVar ic = reduce_axis(0, ic_n, "ic"), kh = reduce_axis(0, 3, "kh"),
          kw = reduce_axis(0, 3, "kw");
  const int64_t out_hw = hw - 2;
  Tensor conv = compute(
      {1, oc_chunks, out_hw, out_hw, oc_bn},
      [&](Var n, Var oc, Var oh, Var ow, Var ob) {
        return sum(data(n, floordiv(ic.var, bn), oh + kh.var, ow + kw.var, floormod(ic.var, bn)) *
                       kernel(oc, floordiv(ic.var, bn), kh.var, kw.var, floormod(ic.var, bn), ob),
                   {ic, kh, kw});
      },
      "conv", {"n", "oc", "oh", "ow", "ob"});
  dag::ComputeDAG d({data, kernel, conv});
  std::vector<HostTensor> in = reference_inputs(d);
  for (HostTensor& t : in) {
    for (double& v : t.data) v = static_cast<double>(static_cast<float>(std::sin(v * 91.0) * 1e3));
  }
  auto out = interp::evaluate(d, in);
  auto at = [](const HostTensor& t, std::vector<int64_t> i) {
    int64_t flat = 0;
    for (size_t d = 0; d < i.size(); ++d) flat = flat * t.shape[d] + i[d];
    return t.data[static_cast<size_t>(flat)];
  };
  for (int64_t oc = 0; oc < oc_chunks; ++oc) {
    for (int64_t oh = 0; oh < out_hw; ++oh) {
      for (int64_t ow = 0; ow < out_hw; ++ow) {
        for (int64_t ob = 0; ob < oc_bn; ++ob) {
          float acc = 0;
          for (int64_t c = 0; c < ic_n; ++c) {
            for (int64_t y = 0; y < 3; ++y) {
              for (int64_t x = 0; x < 3; ++x) {
                acc = static_cast<float>(static_cast<double>(acc) +
                                         at(in[0], {0, c / bn, oh + y, ow + x, c % bn}) *
                                             at(in[1], {oc, c / bn, y, x, c % bn, ob}));
              }
            }
          }
          CHECK(at(out[0], {0, oc, oh, ow, ob}) == static_cast<double>(acc));
        }
      }
    }
  }
}

TEST_CASE("an int8 dense with int32 accumulation is exact, wrapping included", "[interp]") {
  const int64_t m = 3, n = 5, k = 70;
  Tensor a = placeholder({m, k}, "A", DType::Int8);
  Tensor b = placeholder({n, k}, "B", DType::Int8);
  IterVar r = reduce_axis(0, k, "k");
  Tensor c = compute(
      {m, n},
      [&](Var i, Var j) {
        return sum(cast(DType::Int32, a(i, r.var)) * cast(DType::Int32, b(j, r.var)) * 100000, {r});
      },
      "C", {"i", "j"});
  auto out =
      interp::evaluate(dag::ComputeDAG({a, b, c}), reference_inputs(dag::ComputeDAG({a, b, c})));
  HostTensor av = interp::make_reference_input(*a.op()), bv = interp::make_reference_input(*b.op());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      uint32_t acc = 0;  // int32 wrapping, computed without signed overflow
      for (int64_t x = 0; x < k; ++x) {
        auto p = static_cast<int64_t>(av.data[static_cast<size_t>(i * k + x)]) *
                 static_cast<int64_t>(bv.data[static_cast<size_t>(j * k + x)]);
        acc += static_cast<uint32_t>(static_cast<int32_t>(static_cast<uint32_t>(p * 100000)));
      }
      CHECK(out[0].data[static_cast<size_t>(i * n + j)] ==
            static_cast<double>(static_cast<int32_t>(acc)));
    }
  }
}

TEST_CASE("an evaluation past its budget stops with a UserError naming where it was", "[interp]") {
  dag::ComputeDAG d(builtin::matmul(64, 64, 64, DType::Float32));
  CHECK_THROWS_WITH(interp::evaluate(d, reference_inputs(d), 1e-9),
                    Contains("passed its budget") && Contains("element 0 of 4096") &&
                        Contains("check_correctness"));
  // Without a budget, or within it, the same evaluation completes.
  CHECK(interp::evaluate(d, reference_inputs(d))[0].data.size() == 4096);
  CHECK(interp::evaluate(d, reference_inputs(d), 3600)[0].data.size() == 4096);
}
