#include <catch2/catch.hpp>

#include "common/dag/compute_dag.h"
#include "common/ir/printer.h"
#include "common/ir/te.h"
#include "common/util/error.h"

using namespace mrd::ir;

TEST_CASE("te builder reads like TE and prints like TVM", "[ir]") {
  Tensor A = placeholder({512, 512}, "A");
  Tensor B = placeholder({512, 512}, "B");
  IterVar k = reduce_axis(0, 512, "k");
  Tensor C = compute({512, 512}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C",
                     {"i", "j"});
  CHECK(op_definition(*C.op()) == "C(i, j) += (A[i, k]*B[k, j])");
  CHECK(op_definition(*A.op()) == "A = PLACEHOLDER [512, 512]");
  CHECK(C->dtype == DType::Float32);
  REQUIRE(C->reduce_axis.size() == 1);
  Tensor D = compute({512, 512}, [&](Var i, Var j) { return max(C(i, j), 0.0); }, "D", {"i", "j"});
  CHECK(op_definition(*D.op()) == "D(i, j) = max(C[i, j], 0f)");
}

TEST_CASE("stage ids follow TVM's post-DFS order", "[ir]") {
  Tensor A = placeholder({8, 4}, "A");
  Tensor B = placeholder({4, 6}, "B");
  Tensor Cin = placeholder({8, 6}, "C");
  IterVar k = reduce_axis(0, 4, "k");
  Tensor mm = compute({8, 6}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "matmul");
  Tensor out = compute({8, 6}, [&](Var i, Var j) { return mm(i, j) + Cin(i, j); }, "out");
  mrd::dag::ComputeDAG dag({A, B, Cin, out});
  REQUIRE(dag.ops().size() == 5);
  CHECK(dag.stage_id(A.op().get()) == 0);
  CHECK(dag.stage_id(B.op().get()) == 1);
  CHECK(dag.stage_id(mm.op().get()) == 2);
  CHECK(dag.stage_id(Cin.op().get()) == 3);
  CHECK(dag.stage_id(out.op().get()) == 4);
  CHECK(dag.consumers(2) == std::vector<int>{4});
  CHECK(dag.is_output(4));
}

TEST_CASE("ill-typed expressions are user errors", "[ir]") {
  Tensor A = placeholder({4}, "A");
  CHECK_THROWS_AS(A(1, 2), mrd::UserError);
  CHECK_THROWS_AS(floordiv(A(0), A(1)), mrd::UserError);
  CHECK_THROWS_AS(reduce_axis(3, 3, "k"), mrd::UserError);
}
