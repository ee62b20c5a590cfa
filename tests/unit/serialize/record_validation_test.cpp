// Hostile node tables, written in both forms: each rule of the format rejected with its code.
#include <catch2/catch.hpp>

#include "common/ir/stmt.h"
#include "common/util/error.h"
#include "tests/unit/serialize/dag_samples.h"
#include "tests/unit/serialize/outcome.h"

using namespace mrd;
using namespace mrd::serialize;
using namespace mrd::serialize::testing;

TEST_CASE("the hand-written tiny archive is valid in both forms", "[serialize]") {
  CHECK_BOTH_FORMS(tiny_archive(), "ok");
  std::vector<ir::Tensor> t = dag_from_binary(write_binary_archive(tiny_archive()));
  REQUIRE(t.size() == 2);
  CHECK(t[1]->name == "B");
  CHECK(t[1]->body.as<ir::BinaryNode>()->a.as<ir::TensorReadNode>()->op == t[0].op());
}

TEST_CASE("unknown node kinds are rejected", "[serialize]") {
  DagArchive a = tiny_archive();
  a.nodes[3].kind = static_cast<NodeKind>(kNumNodeKinds);
  CHECK_BOTH_FORMS(a, "UnknownNodeKind");
}

TEST_CASE("references to missing nodes are DanglingId", "[serialize]") {
  DagArchive a = tiny_archive();
  a.nodes[2].operands[0] = 99;
  CHECK_BOTH_FORMS(a, "DanglingId");
  a = tiny_archive();
  a.tensors[1] = 6;
  CHECK_BOTH_FORMS(a, "DanglingId");
  a = tiny_archive();
  a.nodes[5].axis[0].var = 1000000;
  CHECK_BOTH_FORMS(a, "DanglingId");
}

TEST_CASE("references to later nodes are ForwardId", "[serialize]") {
  DagArchive a = tiny_archive();
  a.nodes[4].operands[0] = 5;
  CHECK_BOTH_FORMS(a, "ForwardId");
  a = tiny_archive();
  a.nodes[2].ref = 5;  // A[i] reading B, which reads A[i]
  CHECK_BOTH_FORMS(a, "ForwardId");
}

TEST_CASE("a node referring to itself is a Cycle", "[serialize]") {
  DagArchive a = tiny_archive();
  a.nodes[4].operands[1] = 4;
  CHECK_BOTH_FORMS(a, "Cycle");
  a = tiny_archive();
  a.nodes[5].ref = 5;
  CHECK_BOTH_FORMS(a, "Cycle");
}

TEST_CASE("wrong operand or index counts are WrongArity", "[serialize]") {
  DagArchive a = tiny_archive();
  a.nodes[2].operands = {1, 1};  // A has rank 1
  CHECK_BOTH_FORMS(a, "WrongArity");
  a = tiny_archive();
  a.nodes[2].operands = {};
  CHECK_BOTH_FORMS(a, "WrongArity");
  a = tiny_archive();
  a.nodes[4].operands = {2};
  CHECK_BOTH_FORMS(a, "WrongArity");
  a = tiny_archive();
  a.nodes[4].kind = NodeKind::Call;  // exp takes one argument
  a.nodes[4].op = call_op_code(ir::CallOp::Exp);
  CHECK_BOTH_FORMS(a, "WrongArity");
  a = tiny_archive();
  a.nodes[4].operands.assign(100, 2);  // beyond any node's operand count
  CHECK_BOTH_FORMS(a, "WrongArity");
}

TEST_CASE("a reduction needs an axis and a source", "[serialize]") {
  DagArchive a = tiny_archive();
  NodeRecord r;
  r.kind = NodeKind::Reduce;
  r.dtype = dtype_code(ir::DType::Float32);
  r.op = reduce_op_code(ir::ReduceOp::Sum);
  r.operands = {2};
  a.nodes.insert(a.nodes.begin() + 5, r);  // node 5; the compute becomes node 6
  a.nodes[6].ref = 5;
  a.tensors = {0, 6};
  CHECK_BOTH_FORMS(a, "WrongArity");
  a.nodes[5].axis = {{1, 0, 4}};
  a.nodes[5].operands = {};
  CHECK_BOTH_FORMS(a, "WrongArity");
}

TEST_CASE("operand types that do not fit are DTypeMismatch", "[serialize]") {
  auto code = [](ir::DType t) { return dtype_code(t); };
  DagArchive a = tiny_archive();
  a.nodes[4].op = binary_op_code(ir::BinaryOp::FloorDiv);  // floordiv on floats
  CHECK_BOTH_FORMS(a, "DTypeMismatch");
  a = tiny_archive();
  a.nodes[0].dtype = code(ir::DType::Bool);  // bool placeholder
  CHECK_BOTH_FORMS(a, "DTypeMismatch");
  a = tiny_archive();
  a.nodes[5].dtype = code(ir::DType::Int32);  // body is float32
  CHECK_BOTH_FORMS(a, "DTypeMismatch");
  a = tiny_archive();
  a.nodes[4].dtype = code(ir::DType::Float64);  // recorded type differs from the result
  CHECK_BOTH_FORMS(a, "DTypeMismatch");
  a = tiny_archive();
  a.nodes[3].dtype = code(ir::DType::Float64);  // float32 + float64 without a cast
  CHECK_BOTH_FORMS(a, "DTypeMismatch");
  a = tiny_archive();
  a.nodes[1].dtype = code(ir::DType::Float32);  // a float index
  CHECK_BOTH_FORMS(a, "DTypeMismatch");
  a = tiny_archive();
  a.nodes[3].kind = NodeKind::IntImm;  // an int immediate of type float32
  CHECK_BOTH_FORMS(a, "DTypeMismatch");
}

TEST_CASE("zero and negative dimensions are BadShape", "[serialize]") {
  DagArchive a = tiny_archive();
  a.nodes[0].shape = {0};
  CHECK_BOTH_FORMS(a, "BadShape");
  a.nodes[0].shape = {-3};
  CHECK_BOTH_FORMS(a, "BadShape");
  a = tiny_archive();
  a.nodes[5].axis[0].extent = 0;
  CHECK_BOTH_FORMS(a, "BadShape");
  a.nodes[5].axis[0].extent = -1;
  CHECK_BOTH_FORMS(a, "BadShape");
}

TEST_CASE("sizes beyond the limits are TooLarge", "[serialize]") {
  DagArchive a = tiny_archive();
  a.nodes[0].shape = {int64_t{1} << 40, int64_t{1} << 40};  // overflows int64
  CHECK_BOTH_FORMS(a, "TooLarge");
  a.nodes[0].shape = {int64_t{1} << 31, 2};  // beyond max_tensor_elements
  CHECK_BOTH_FORMS(a, "TooLarge");
  a.nodes[0].dtype = dtype_code(ir::DType::Float64);
  a.nodes[0].shape = {int64_t{1} << 31};  // 2^31 elements is allowed, 16 GiB is not
  CHECK_BOTH_FORMS(a, "TooLarge");
  a = tiny_archive();
  Limits small;
  small.max_tensor_bytes = 15;  // A is 16 bytes
  CHECK_BOTH_FORMS(a, "TooLarge", small);
  small.max_tensor_bytes = 16;
  CHECK_BOTH_FORMS(a, "ok", small);
  a.nodes[0].shape.assign(9, 1);  // rank 9
  CHECK_BOTH_FORMS(a, "TooLarge");
  a = tiny_archive();
  Limits names;
  names.max_name_length = 0;
  CHECK_BOTH_FORMS(a, "TooLarge", names);
  a.nodes[5].name = std::string(257, 'x');
  CHECK_BOTH_FORMS(a, "TooLarge");
}

TEST_CASE("node counts beyond the limit are TooManyNodes", "[serialize]") {
  Limits l;
  l.max_nodes = 5;
  CHECK_BOTH_FORMS(tiny_archive(), "TooManyNodes", l);
  l.max_nodes = 6;
  CHECK_BOTH_FORMS(tiny_archive(), "ok", l);
}

TEST_CASE("a body whose shared sub-expressions expand to a huge tree is TooManyNodes",
          "[serialize]") {
  DagArchive a = doubling_chain_archive();
  CHECK_BOTH_FORMS(a, "TooManyNodes");
  a.nodes[4].operands = {2, 3};  // no longer a doubling chain: A[i] + 1.0f, then 44 doublings
  CHECK_BOTH_FORMS(a, "TooManyNodes");
  Limits tree;
  tree.max_nodes = 10;  // fits the 10 nodes, not their 80-node tree
  a.nodes.erase(a.nodes.begin() + 9, a.nodes.end() - 1);
  a.nodes.back().ref = 8;
  a.tensors = {0, 9};
  CHECK_BOTH_FORMS(a, "ok");
  CHECK_BOTH_FORMS(a, "TooManyNodes", tree);
}

TEST_CASE("expressions deeper than the limit are TooDeep", "[serialize]") {
  ir::Tensor A = ir::placeholder({4}, "A");
  ir::Tensor B = ir::compute(
      {4},
      [&](ir::Var i) {
        ir::Expr x = A(i);
        for (int k = 0; k < 600; ++k) x = x + 1.0f;
        return x;
      },
      "B");
  CHECK(binary_outcome(dag_to_binary({A, B})) == "TooDeep");
  CHECK(json_outcome(dag_to_json({A, B})) == "TooDeep");
  // Var 1 < A[i, k] 2 (A is 1) < A*B 3 < sum 4 < compute C 5.
  auto mm = testing::matmul_dag();
  Limits l;
  l.max_expr_depth = 5;
  CHECK(binary_outcome(dag_to_binary(mm), l) == "ok");
  l.max_expr_depth = 4;
  CHECK(binary_outcome(dag_to_binary(mm), l) == "TooDeep");
  CHECK(json_outcome(dag_to_json(mm), l) == "TooDeep");
  l.max_expr_depth = 3;
  CHECK(binary_outcome(dag_to_binary(mm), l) == "TooDeep");
}

TEST_CASE("other invalid content is Malformed", "[serialize]") {
  DagArchive a = tiny_archive();
  a.tensors[1] = 4;  // an expression, not an operation
  CHECK_BOTH_FORMS(a, "Malformed");
  a = tiny_archive();
  a.nodes[2].ref = 1;  // reading a var as a tensor
  CHECK_BOTH_FORMS(a, "Malformed");
  a = tiny_archive();
  a.nodes[4].operands[0] = 0;  // an operation as an operand
  CHECK_BOTH_FORMS(a, "Malformed");
  a = tiny_archive();
  a.nodes[5].axis[0].var = 3;  // an axis that is not a var
  CHECK_BOTH_FORMS(a, "Malformed");
  a = tiny_archive();
  a.nodes[5].axis[0].min = 1;  // compute axes start at 0
  CHECK_BOTH_FORMS(a, "Malformed");
  a = tiny_archive();
  a.nodes[3].kind = NodeKind::IntImm;
  a.nodes[3].dtype = dtype_code(ir::DType::Int32);
  a.nodes[3].int_value = int64_t{1} << 40;  // does not fit int32
  CHECK_BOTH_FORMS(a, "Malformed");
  for (auto [t, v] : {std::pair{ir::DType::Int8, int64_t{128}},
                      std::pair{ir::DType::UInt8, int64_t{-1}},
                      std::pair{ir::DType::UInt8, int64_t{256}},
                      std::pair{ir::DType::Int16, int64_t{32768}},
                      std::pair{ir::DType::UInt16, int64_t{-1}},
                      std::pair{ir::DType::UInt32, int64_t{1} << 32}}) {
    a.nodes[3].dtype = dtype_code(t);
    a.nodes[3].int_value = v;
    INFO(ir::dtype_name(t) << " immediate " << v);
    CHECK_BOTH_FORMS(a, "Malformed");
  }
}

TEST_CASE("unknown dtype and operator codes are Malformed", "[serialize]") {
  DagArchive a = tiny_archive();
  a.nodes[0].dtype = 10;  // one past uint32, the last dtype
  CHECK_BOTH_FORMS(a, "Malformed");
  a = tiny_archive();
  a.nodes[4].op = 99;
  CHECK_BOTH_FORMS(a, "Malformed");
}

TEST_CASE("a decode error names its code and the offending node", "[serialize]") {
  DagArchive a = tiny_archive();
  a.nodes[4].operands[0] = 5;
  try {
    dag_from_binary(write_binary_archive(a));
    FAIL("decoded a forward reference");
  } catch (const DecodeError& e) {
    CHECK(e.code() == DecodeErrc::ForwardId);
    CHECK(std::string(e.what()).find("ForwardId") != std::string::npos);
    CHECK(std::string(e.what()).find("node 4") != std::string::npos);
  }
}

TEST_CASE("a reduction may not be an operand", "[serialize]") {
  // sum(A[k]) + 1.0f, with the sum below the top of the body.
  DagArchive a = tiny_archive();
  NodeRecord r;
  r.kind = NodeKind::Reduce;
  r.dtype = dtype_code(ir::DType::Float32);
  r.op = reduce_op_code(ir::ReduceOp::Sum);
  r.axis = {{1, 0, 4}};
  r.operands = {2};
  a.nodes.insert(a.nodes.begin() + 3, r);  // node 3; ids after it shift by one
  a.nodes[5].operands = {3, 4};
  a.nodes[6].ref = 5;
  a.tensors = {0, 6};
  CHECK_BOTH_FORMS(a, "Malformed");
  a.nodes[5].operands = {2, 4};  // the same table without the misplaced use is fine
  CHECK_BOTH_FORMS(a, "ok");
}

TEST_CASE("encoding something that is not a DAG is an internal error", "[serialize]") {
  ir::Buffer buf = ir::BufferNode::make("buf", ir::DType::Float32, {4});
  ir::Tensor B = ir::compute(
      {4}, [&](ir::Var i) { return ir::BufferLoadNode::make(buf, {i}); }, "B");
  CHECK_THROWS_AS(dag_to_binary({B}), InternalError);
  CHECK_THROWS_AS(dag_to_json({B}), InternalError);
}

TEST_CASE("depth counts through reads into the ops read", "[serialize]") {
  // 600 shallow ops, each reading the previous: destroying or inlining the last one recurses
  // through all of them.
  std::vector<ir::Tensor> chain{ir::placeholder({4}, "A")};
  for (int k = 0; k < 600; ++k) {
    ir::Tensor prev = chain.back();
    chain.push_back(ir::compute(
        {4}, [&](ir::Var i) { return prev(i) + 1.0f; }, "B"));
  }
  std::vector<ir::Tensor> dag{chain.front(), chain.back()};
  CHECK(binary_outcome(dag_to_binary(dag)) == "TooDeep");
  CHECK(json_outcome(dag_to_json(dag)) == "TooDeep");
  // matmul+add: C is 5 (see above); E = C[i, j] + D[i, j] is 8; F = E[i, j] * D[i, j] is 11.
  auto mm = testing::matmul_add_dag();
  Limits l;
  l.max_expr_depth = 11;
  CHECK(binary_outcome(dag_to_binary(mm), l) == "ok");
  l.max_expr_depth = 10;
  CHECK(binary_outcome(dag_to_binary(mm), l) == "TooDeep");
  CHECK(json_outcome(dag_to_json(mm), l) == "TooDeep");
}
