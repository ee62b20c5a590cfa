// te::Schedule::cache_write for a compute stage: the body moves to a new stage
// `<op>.<scope>` and the original becomes the element-wise copy `C(i, j) = C.local(i, j)`.
#include "common/ir/substitute.h"
#include "common/schedule/te_schedule.h"
#include "common/util/error.h"

namespace mrd::schedule {

int cache_write(Schedule& sch, int stage_id, const std::string& scope) {
  Stage& s = *sch.stages.at(stage_id);
  MRD_USER_CHECK(!s.is_placeholder(), "cannot cache_write placeholder ", s.op->name);
  MRD_USER_CHECK(s.attach != AttachKind::Inline, "cannot cache_write inlined stage ", s.op->name);
  MRD_USER_CHECK(scope == "local" || scope == "global", "unsupported cache scope \"", scope,
                 "\" (CPU knows local and global)");
  const ir::OperationNode& old = *s.op;
  MRD_USER_CHECK(sch.stages.size() < kMaxStages, "the schedule would have more than ", kMaxStages,
                 " stages");

  std::vector<ir::IterVar> cache_axis;
  ir::VarMap vsub;
  for (const ir::IterVar& iv : old.axis) {
    ir::Var v(iv.var.name() + ".c");
    cache_axis.push_back(ir::IterVar{v, iv.min, iv.extent, ir::IterKind::DataPar});
    vsub[static_cast<const ir::VarNode*>(iv.var.get())] = v;
  }
  // The layout-free placeholders go with both ops, as TVM copies an op's attributes.
  ir::Operation cache_op = ir::OperationNode::with_layout_free_placeholders(
      ir::OperationNode::make_compute(old.name + "." + scope, old.tag, cache_axis, ir::substitute(old.body, vsub)),
      old.layout_free_placeholders);

  std::vector<ir::Expr> idx;
  for (const ir::IterVar& iv : old.axis) idx.push_back(iv.var);
  ir::Operation copy_op = ir::OperationNode::with_layout_free_placeholders(
      ir::OperationNode::make_compute(old.name, old.tag, old.axis, ir::TensorReadNode::make(cache_op, idx)),
      old.layout_free_placeholders);

  StageRef fresh = make_stage(copy_op, s.origin);
  s.op = fresh->op;
  s.root_iters = fresh->root_iters;
  s.leaf_iters = fresh->leaf_iters;
  s.relations.clear();
  s.annotations.clear();
  s.auto_unroll_max_step.clear();

  StageRef cache = make_stage(cache_op, cache_op);
  cache->scope = scope == "local" ? ir::MemScope::Local : ir::MemScope::Global;
  sch.stages.insert(sch.stages.begin() + stage_id, cache);
  return stage_id;
}

}  // namespace mrd::schedule
