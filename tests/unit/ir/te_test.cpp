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

TEST_CASE("operands of different types meet as in TVM's BinaryOpMatchTypes", "[ir]") {
  Tensor u16 = placeholder({4}, "U", DType::UInt16);
  Tensor i16 = placeholder({4}, "I", DType::Int16);
  Tensor u32 = placeholder({4}, "V", DType::UInt32);
  Tensor i8 = placeholder({4}, "J", DType::Int8);
  Tensor f = placeholder({4}, "F");
  CHECK((u16(0) + i16(0))->dtype == DType::Int16);   // signed of the larger width
  CHECK((u32(0) + i16(0))->dtype == DType::Int32);   // neither operand's own type
  CHECK((u16(0) + u32(0))->dtype == DType::UInt32);  // one signedness: the wider
  CHECK((i8(0) + i16(0))->dtype == DType::Int16);
  CHECK((u32(0) + f(0))->dtype == DType::Float32);
  CHECK(bitwise_and(u16(0), i8(0))->dtype == DType::Int16);
  CHECK(shift_right(u32(0), 3)->dtype == DType::UInt32);  // the constant takes the type
  CHECK(truncmod(f(0), 2.5)->dtype == DType::Float32);
  CHECK_THROWS_AS(shift_left(f(0), 1), mrd::UserError);
  CHECK_THROWS_AS(bitwise_not(f(0)), mrd::UserError);
  Tensor M = compute({4}, [&](Var i) { return truncmod(i16(i), 3) + shift_right(i16(i), 1); }, "M", {"i"});
  // As TVM prints truncmod (and the DAG's workload key hashes the print).
  CHECK(op_definition(*M.op()) == "M(i) = ((I[i] % 3) + tir.shift_right(I[i], 1))");
}
