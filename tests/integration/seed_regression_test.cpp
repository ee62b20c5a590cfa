// The bug measurerd grew out of: TVM's auto_scheduler serialized a workload's tensors one by
// one, so under spawned workers the output came back reading new copies of its placeholders,
// and lowering asserted. Here the tensor entry travels as one archive and lowering succeeds;
// the one-by-one way is still reproducible and gives a clear user error, never a crash.
#include <catch2/catch.hpp>

#include <unordered_set>

#include "common/dag/compute_dag.h"
#include "common/ir/expr_functor.h"
#include "common/ir/te.h"
#include "common/lower/lower.h"
#include "common/registry/registry.h"
#include "common/registry/workload_codec.h"
#include "common/serialize/serialize.h"
#include "common/util/error.h"

using namespace mrd;
using namespace mrd::ir;

namespace {

/// The seed's workload: E = relu(relu(A @ B)), arguments [A, B, E].
std::vector<Tensor> seed_chain(int64_t n) {
  Tensor A = placeholder({n, n}, "A");
  Tensor B = placeholder({n, n}, "B");
  IterVar k = reduce_axis(0, n, "k");
  Tensor C = compute({n, n}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C",
                     {"i", "j"});
  Tensor D = compute({n, n}, [&](Var i, Var j) { return max(C(i, j), 0.0f); }, "D", {"i", "j"});
  Tensor E = compute({n, n}, [&](Var i, Var j) { return max(D(i, j), 0.0f); }, "E", {"i", "j"});
  return {A, B, E};
}

/// Every placeholder that the DAG reachable from `tensors` reads.
std::unordered_set<const OperationNode*> placeholders_read(const std::vector<Tensor>& tensors) {
  std::unordered_set<const OperationNode*> out;
  dag::ComputeDAG dag(tensors);
  for (const Operation& op : dag.ops()) {
    if (op->is_placeholder()) continue;
    post_order_visit(op->body, [&](const Expr& e) {
      if (const auto* r = e.as<TensorReadNode>()) {
        if (r->op->is_placeholder()) out.insert(r->op.get());
      }
    });
  }
  return out;
}

}  // namespace

TEST_CASE("seed: a tensor entry serialized as one archive lowers after the round trip",
          "[seed]") {
  registry::Registry reg;
  std::string key = reg.register_tensors(seed_chain(512));
  std::string bytes =
      registry::workload_to_binary(registry::TensorWorkload{key, reg.instantiate(
                                                                     registry::TensorWorkload{key, {}})});
  reg.clear_tensor_entries();
  CHECK_THROWS_AS(reg.instantiate(registry::TensorWorkload{key, {}}), UserError);

  registry::Workload back = registry::workload_from_binary(bytes);
  std::vector<Tensor> tensors = reg.instantiate(back);
  REQUIRE(tensors.size() == 3);
  CHECK(registry::workload_key(back) == key);

  // The placeholders the chain reads are the argument tensors themselves.
  std::unordered_set<const OperationNode*> read = placeholders_read(tensors);
  CHECK(read == std::unordered_set<const OperationNode*>{tensors[0].op().get(),
                                                         tensors[1].op().get()});

  dag::ComputeDAG dag(tensors);
  PrimFunc f = lower::lower(dag, {});
  REQUIRE(f.params.size() == 3);
  CHECK(f.params[0]->name == "A");
  CHECK(f.params[2]->name == "E");
}

TEST_CASE("seed: tensors serialized one by one duplicate inputs and lowering names the tensor",
          "[seed]") {
  std::vector<Tensor> original = seed_chain(512);
  std::vector<Tensor> separately;
  for (const Tensor& t : original) {
    std::vector<Tensor> one = serialize::dag_from_binary(serialize::dag_to_binary({t}));
    REQUIRE(one.size() == 1);
    separately.push_back(one[0]);
  }
  // E came back reading its own private copies of A and B.
  std::unordered_set<const OperationNode*> read = placeholders_read({separately[2]});
  CHECK_FALSE(read.count(separately[0].op().get()));
  CHECK_FALSE(read.count(separately[1].op().get()));

  dag::ComputeDAG dag(separately);
  try {
    lower::lower(dag, {});
    FAIL("lowering a DAG whose inputs are not its arguments must fail");
  } catch (const UserError& e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK((msg.find("tensor A") != std::string::npos || msg.find("tensor B") != std::string::npos));
    CHECK(msg.find("not a function argument") != std::string::npos);
  }
}
