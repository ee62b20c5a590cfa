// The reference's exact twin: the same DAG in float64.
#include "common/interp/float64_twin.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "common/interp/reference_interpreter.h"
#include "common/ir/te.h"

using namespace mrd;
using namespace mrd::ir;

TEST_CASE("float64 twin: the same math without float32's rounding, its tensors in the same order",
          "[interp]") {
  // S = sum of 2M copies of x * 1.1f, then T = S + 0.5f: in float32 one term at a time the sum
  // rounds at every addition past 2^21; in the twin it is exact to double precision.
  constexpr int64_t n = int64_t{1} << 21;
  Tensor x = placeholder({n}, "x");
  IterVar k = reduce_axis(0, n, "k");
  Tensor s = compute(
      {1}, [&](Var) { return sum(x(k) * 1.1f, {k}); }, "S");
  Tensor t = compute(
      {1}, [&](Var i) { return s(i) + Expr(0.5f); }, "T");
  dag::ComputeDAG dag({x, s, t});
  interp::HostTensor in{DType::Float32, {n}, std::vector<double>(n, 1.0)};

  std::vector<interp::HostTensor> f32 = interp::evaluate(dag, {in});
  dag::ComputeDAG twin = interp::float64_twin(dag);
  REQUIRE(twin.tensors().size() == 3);
  for (const Tensor& tensor : twin.tensors()) CHECK(tensor->dtype == DType::Float64);
  std::vector<interp::HostTensor> f64 = interp::evaluate(twin, interp::float64_inputs({in}));
  REQUIRE(f64.size() == 2);
  CHECK(f64[0].dtype == DType::Float64);
  double exact = double(n) * double(1.1f);
  CHECK(f64[0].data[0] == Approx(exact).epsilon(1e-12));
  CHECK(f64[1].data[0] == Approx(exact + 0.5).epsilon(1e-12));
  // float32, one term at a time, is well off it.
  CHECK(std::fabs(f32[0].data[0] - exact) > 1e-3 * exact);
  // Integers and their casts stay as they are.
  Tensor c = compute(
      {1}, [&](Var i) { return cast(DType::Int32, t(i)); }, "C");
  dag::ComputeDAG with_int({x, s, t, c});
  CHECK(interp::float64_twin(with_int).tensors()[3]->dtype == DType::Int32);
}
