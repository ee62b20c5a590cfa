#include <catch2/catch.hpp>

#include "common/serialize/serialize.h"
#include "tests/unit/serialize/dag_samples.h"

using namespace mrd;
using namespace mrd::ir;
using namespace mrd::serialize;
using namespace mrd::serialize::testing;

namespace {

const TensorReadNode* read_of(const Expr& e) {
  return e.as<TensorReadNode>();
}

using Loader = std::vector<Tensor> (*)(const std::vector<Tensor>&);
std::vector<Tensor> via_binary(const std::vector<Tensor>& t) {
  return dag_from_binary(dag_to_binary(t));
}
std::vector<Tensor> via_json(const std::vector<Tensor>& t) {
  return dag_from_json(dag_to_json(t));
}

}  // namespace

TEST_CASE("loaded outputs read the loaded inputs themselves", "[serialize]") {
  for (Loader load : {via_binary, via_json}) {
    std::vector<Tensor> dag = load(matmul_dag());
    REQUIRE(dag.size() == 3);
    const ReduceNode* r = dag[2]->body.as<ReduceNode>();
    REQUIRE(r != nullptr);
    const BinaryNode* mul = r->source.as<BinaryNode>();
    REQUIRE(mul != nullptr);
    CHECK(read_of(mul->a)->op == dag[0].op());
    CHECK(read_of(mul->b)->op == dag[1].op());
    // The axis vars and the reduce var used in the body are the axis's own nodes.
    CHECK(read_of(mul->a)->indices[0].same_as(dag[2]->axis[0].var));
    CHECK(read_of(mul->b)->indices[1].same_as(dag[2]->axis[1].var));
    CHECK(read_of(mul->a)->indices[1].same_as(dag[2]->reduce_axis[0].var));
    CHECK(read_of(mul->b)->indices[0].same_as(r->axis[0].var));
    CHECK(dag[2]->reduce_axis[0].var.same_as(r->axis[0].var));
  }
}

TEST_CASE("a placeholder read by two ops comes back as one operation", "[serialize]") {
  for (Loader load : {via_binary, via_json}) {
    std::vector<Tensor> dag = load(matmul_add_dag());
    REQUIRE(dag.size() == 4);
    const Operation& D = dag[2].op();
    const BinaryNode* f = dag[3]->body.as<BinaryNode>();
    REQUIRE(f != nullptr);
    const Operation& E = read_of(f->a)->op;
    CHECK(read_of(f->b)->op == D);
    const BinaryNode* e = E->body.as<BinaryNode>();
    REQUIRE(e != nullptr);
    CHECK(read_of(e->b)->op == D);
    const Operation& C = read_of(e->a)->op;
    const BinaryNode* mul = C->body.as<ReduceNode>()->source.as<BinaryNode>();
    CHECK(read_of(mul->a)->op == dag[0].op());
    CHECK(read_of(mul->b)->op == dag[1].op());
    CHECK(E->tag == "elemwise");
  }
}

TEST_CASE("a sub-expression shared inside a body stays one node", "[serialize]") {
  Tensor A = placeholder({4}, "A");
  Tensor B = compute(
      {4},
      [&](Var i) {
        Expr x = A(i) * 2.0f;
        return x * x;
      },
      "B");
  for (Loader load : {via_binary, via_json}) {
    std::vector<Tensor> dag = load({A, B});
    const BinaryNode* sq = dag[1]->body.as<BinaryNode>();
    REQUIRE(sq != nullptr);
    CHECK(sq->a.same_as(sq->b));
  }
}

TEST_CASE("serializing tensors one by one loses sharing (the seed's failure mode)", "[serialize]") {
  std::vector<Tensor> dag = matmul_add_dag();  // [A, B, D, F]
  std::vector<Tensor> loaded;
  for (const Tensor& t : dag) loaded.push_back(dag_from_binary(dag_to_binary({t})).at(0));
  const Tensor& A = loaded[0];
  const Tensor& F = loaded[3];
  const BinaryNode* f = F->body.as<BinaryNode>();
  const Operation& E = read_of(f->a)->op;
  const Operation& C = read_of(E->body.as<BinaryNode>()->a)->op;
  const Operation& A_read = read_of(C->body.as<ReduceNode>()->source.as<BinaryNode>()->a)->op;
  // Both are called A and look alike, but the output reads its own copy.
  CHECK(A_read->name == A->name);
  CHECK(A_read->shape == A->shape);
  CHECK(A_read != A.op());
  // Whereas the atomic archive gives the very same node.
  std::vector<Tensor> atomic = dag_from_binary(dag_to_binary(dag));
  const BinaryNode* f2 = atomic[3]->body.as<BinaryNode>();
  const Operation& C2 = read_of(read_of(f2->a)->op->body.as<BinaryNode>()->a)->op;
  CHECK(read_of(C2->body.as<ReduceNode>()->source.as<BinaryNode>()->a)->op == atomic[0].op());
}

TEST_CASE("the same tensor listed twice is one operation", "[serialize]") {
  std::vector<Tensor> dag = matmul_dag();
  dag.push_back(dag[0]);
  std::vector<Tensor> loaded = dag_from_binary(dag_to_binary(dag));
  REQUIRE(loaded.size() == 4);
  CHECK(loaded[3].same_as(loaded[0]));
}
