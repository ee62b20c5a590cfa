#include "common/dag/flop_count.h"

#include <catch2/catch.hpp>

#include "common/ir/te.h"
#include "common/registry/builtin_workloads.h"

using namespace mrd;
using namespace mrd::ir;
namespace builtin = mrd::registry::builtin;

TEST_CASE("matmul counts a multiply and an add per reduction step", "[dag]") {
  CHECK(dag::flop_count(dag::ComputeDAG(builtin::matmul(512, 512, 512, DType::Float32))) ==
        2.0 * 512 * 512 * 512);
  CHECK(dag::flop_count(dag::ComputeDAG(builtin::matmul(128, 96, 64, DType::Float32))) ==
        2.0 * 128 * 96 * 64);
  // matmul_add: the matmul plus one add per output element.
  CHECK(dag::flop_count(dag::ComputeDAG(builtin::matmul_add(96, 64, 80, DType::Float32))) ==
        2.0 * 96 * 64 * 80 + 96 * 80);
}

TEST_CASE("conv2d counts only the reduction, not padding or index arithmetic", "[dag]") {
  // pad_temp = if_then_else(cond, data[...], 0f): the call counts its arguments only; the
  // && of index comparisons has bool operands and the comparisons int operands, neither the
  // float class of pad_temp, so 0. conv2d_nchw: per output element 8*3*3 reduction steps of
  // (combiner add 1 + multiply 1); the index sums (yy + ry) sit inside reads, not visited.
  // 1*16*14*14 outputs * 72 * 2 = 451584.
  CHECK(dag::flop_count(dag::ComputeDAG(builtin::conv2d_nchw(1, 8, 14, 14, 16, 3, 3, 1, 1))) ==
        451584.0);
}

TEST_CASE("softmax counts max, subtract, add and divide per element", "[dag]") {
  // maxelem: 32 * 200 * (max combiner 1 + read 0); exp: 32*200 * (subtract 1; exp itself 0);
  // expsum: 32 * 200 * (add 1 + read 0); norm: 32*200 * divide 1. Total 4 * 6400.
  CHECK(dag::flop_count(dag::ComputeDAG(builtin::softmax(32, 200))) == 25600.0);
}

TEST_CASE("operators count by their operands' type class, as TVM's estimator", "[dag]") {
  Tensor a = placeholder({10}, "A");
  // A float comparison in a float op counts (its operands are float although it is bool);
  // select counts condition + the larger branch: 1 + max(1, 0) = 2.
  Tensor s =
      compute({10}, [&](Var i) { return select(a(i) > 0.0f, a(i) * 2.0f, 0.0f); }, "S", {"i"});
  CHECK(dag::flop_count(dag::ComputeDAG({a, s})) == 20.0);
  // An index comparison in a float op does not count: 0 + max(1, 0).
  Tensor t = compute({10}, [&](Var i) { return select(i < 5, a(i) * 2.0f, 0.0f); }, "T", {"i"});
  CHECK(dag::flop_count(dag::ComputeDAG({a, t})) == 10.0);
  // In an int32 op, integer arithmetic counts: (i + 1) * 2 and the outer + are 3 per
  // element; the cast counts its value, a float product, which is not of the int class: 0.
  Tensor u = compute({10}, [&](Var i) { return (i + 1) * 2 + cast(DType::Int32, a(i) * 3.0f); },
                     "U", {"i"});
  CHECK(dag::flop_count(dag::ComputeDAG({a, u})) == 10.0 * 3);
  // In a float op, the same cast of a float product counts 1.
  Tensor v = compute({10}, [&](Var i) { return cast(DType::Float64, a(i) * 3.0f); }, "V", {"i"});
  CHECK(dag::flop_count(dag::ComputeDAG({a, v})) == 10.0);
  // Calls count their arguments only: exp(a) is 0, exp(a + 1) is 1.
  Tensor e = compute({10}, [&](Var i) { return exp(a(i)) + exp(a(i) + 1.0f); }, "E", {"i"});
  CHECK(dag::flop_count(dag::ComputeDAG({a, e})) == 10.0 * 2);
}
