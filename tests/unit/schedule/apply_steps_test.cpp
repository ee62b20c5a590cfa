// The schedule state that steps build: stage ids, iterator lists, names and attachments,
// as auto_scheduler's state evolves (see tests/data/tvm-reference/README.md).
#include "common/schedule/apply_steps.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/registry/registry.h"
#include "common/util/error.h"

using namespace mrd;
using namespace mrd::schedule;
using Catch::Contains;

namespace {

dag::ComputeDAG builtin(const std::string& name, std::vector<registry::WorkloadArg> args) {
  return dag::ComputeDAG(
      registry::Registry::global().instantiate(registry::FunctionWorkload{name, args}));
}

Schedule apply(const dag::ComputeDAG& dag, const char* steps) {
  return apply_steps(dag, steps_from_json(nlohmann::json::parse(steps)));
}

std::vector<std::string> leaf_names(const Stage& s) {
  std::vector<std::string> out;
  for (const IterVarRef& iv : s.leaf_iters) out.push_back(iv->name());
  return out;
}

std::vector<std::string> stage_names(const Schedule& sch) {
  std::vector<std::string> out;
  for (const StageRef& s : sch.stages) out.push_back(s->op->name);
  return out;
}

dag::ComputeDAG matmul() {
  return builtin("matmul", {int64_t(128), int64_t(96), int64_t(64), std::string("float32")});
}

}  // namespace

TEST_CASE("initial state: stages in DAG order, iterators = axis then reduce_axis", "[schedule]") {
  Schedule sch = apply(matmul(), "[]");
  CHECK(stage_names(sch) == std::vector<std::string>{"A", "B", "C"});
  CHECK(leaf_names(*sch.stages[2]) == std::vector<std::string>{"i", "j", "k"});
  CHECK(sch.stages[2]->leaf_iters[2]->kind == ir::IterKind::Reduce);
}

TEST_CASE("SP, FU and RE edit the iterator list as TVM names it", "[schedule]") {
  Schedule sch = apply(matmul(), R"([["SP", 2, 0, 128, [1, 8, 8], 1], ["SP", 2, 4, 64, [2, 4], 0],
                                     ["RE", 2, [0, 4, 1, 5, 2, 6, 3, 7]], ["FU", 2, [0, 1]]])");
  CHECK(leaf_names(*sch.stages[2]) == std::vector<std::string>{"i.outer.outer.outer.j.outer.fused",
                                                               "i.outer.outer.inner",
                                                               "j.inner.outer", "i.outer.inner",
                                                               "j.inner.inner", "i.inner", "k"});
  // inner_to_outer: three factor splits, innermost first; nparts: outer first.
  CHECK(sch.stages[2]->relations.size() == 6);
  const auto& first = std::get<SplitRelation>(sch.stages[2]->relations[0]);
  CHECK(first.factor == 8);
  const auto& np = std::get<SplitRelation>(sch.stages[2]->relations[3]);
  CHECK(np.nparts == 2);
}

TEST_CASE("CHW inserts <op>.local before the stage and shifts later ids", "[schedule]") {
  auto dag = builtin("matmul_add", {int64_t(16), int64_t(8), int64_t(12), std::string("float32")});
  Schedule sch = apply(dag, R"([["CHW", 2, "local"], ["SP", 2, 0, 16, [4], 1], ["CA", 2, 5, 0]])");
  CHECK(stage_names(sch) ==
        std::vector<std::string>{"A", "B", "matmul.local", "matmul", "C", "out"});
  CHECK(leaf_names(*sch.stages[2]) ==
        std::vector<std::string>{"i.c.outer", "i.c.inner", "j.c", "k"});
  CHECK(leaf_names(*sch.stages[3]) == std::vector<std::string>{"i", "j"});
  CHECK(sch.stages[3]->op->reduce_axis.empty());
  CHECK(sch.stages[3]->origin == dag.ops()[2]);  // still writes the original tensor
  CHECK(sch.stages[2]->scope == ir::MemScope::Local);
  CHECK(sch.stages[2]->attach == AttachKind::At);
  CHECK(sch.stages[2]->attach_stage == sch.stages[5].get());
}

TEST_CASE("RF inserts <op>.rf and renames the original <op>.repl", "[schedule]") {
  auto dag = builtin("softmax", {int64_t(32), int64_t(200)});
  Schedule sch = apply(dag, R"([["SP", 3, 1, 200, [5], 1], ["RF", 3, 2, 1]])");
  CHECK(stage_names(sch) == std::vector<std::string>{"A", "T_softmax_maxelem", "T_softmax_exp",
                                                     "T_softmax_expsum.rf", "T_softmax_expsum.repl",
                                                     "T_softmax_norm"});
  const Stage& rf = *sch.stages[3];
  // The factored iterator k.inner becomes a data-parallel axis at position 1.
  CHECK(leaf_names(rf) == std::vector<std::string>{"i0", "k.inner", "k.outer"});
  CHECK(rf.op->shape == std::vector<int64_t>{32, 5});
  CHECK(rf.leaf_iters[1]->kind == ir::IterKind::DataPar);
  CHECK(rf.leaf_iters[2]->kind == ir::IterKind::Reduce);
  CHECK(rf.leaf_iters[2]->dom_extent == 40);
  CHECK(leaf_names(*sch.stages[4]) == std::vector<std::string>{"i0", "k.inner.v"});
  CHECK(sch.stages[4]->leaf_iters[1]->dom_extent == 5);

  Schedule outer = apply(dag, R"([["SP", 3, 1, 200, [10], 1], ["RF", 3, 1, 0]])");
  CHECK(leaf_names(*outer.stages[3]) == std::vector<std::string>{"k.outer", "i0", "k.inner"});
  CHECK(outer.stages[3]->op->shape == std::vector<int64_t>{20, 32});
}

TEST_CASE("compute_at follows a fused target iterator", "[schedule]") {
  auto dag = builtin("matmul_add", {int64_t(16), int64_t(8), int64_t(12), std::string("float32")});
  Schedule sch = apply(dag, R"([["CA", 2, 4, 1], ["FU", 4, [0, 1]]])");
  CHECK(sch.stages[2]->attach_iter == sch.stages[4]->leaf_iters[0]);
  Schedule root = apply(dag, R"([["CA", 2, 4, 1], ["CR", 2]])");
  CHECK(root.stages[2]->attach == AttachKind::Root);
  Schedule inl = apply(
      builtin("matmul_relu_relu", {int64_t(4), int64_t(3), int64_t(5), std::string("float32")}),
      R"([["CI", 3]])");
  CHECK(inl.stages[3]->attach == AttachKind::Inline);
}

TEST_CASE("invalid steps name the step", "[schedule]") {
  auto dag = matmul();
  CHECK_THROWS_WITH(apply(dag, R"([["SP", 3, 0, 128, [2], 1]])"),
                    Contains("step 0 (SP)") && Contains("stage id 3"));
  CHECK_THROWS_WITH(apply(dag, R"([["SP", 2, 3, 128, [2], 1]])"), Contains("iterator id 3"));
  CHECK_THROWS_WITH(apply(dag, R"([["SP", 0, 0, 128, [2], 1]])"), Contains("placeholder"));
  CHECK_THROWS_WITH(apply(dag, R"([["CI", 2], ["CR", 1]])"), Contains("step 0 (CI)"));
  CHECK_THROWS_WITH(apply(dag, R"([["CHW", 2, "shared"]])"),
                    Contains("step 0 (CHW)") && Contains("scope"));
  CHECK_THROWS_WITH(apply(dag, R"([["CA", 2, 2, 0]])"), Contains("step 0 (CA)"));
  CHECK_THROWS_WITH(apply(dag, R"([["RF", 2, 2, 3]])"),
                    Contains("step 0 (RF)") && Contains("factor_iter_id"));
}
