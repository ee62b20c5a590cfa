#include "common/schedule/te_schedule.h"

#include <algorithm>
#include <limits>

#include "common/util/error.h"

namespace mrd::schedule {

int Stage::leaf_index(const IterVarNode* iv) const {
  for (size_t i = 0; i < leaf_iters.size(); ++i) {
    if (leaf_iters[i].get() == iv) return static_cast<int>(i);
  }
  return -1;
}

namespace {
IterVarRef root_iter(const ir::IterVar& iv) {
  auto n = std::make_shared<IterVarNode>();
  n->var = iv.var;
  n->kind = iv.kind;
  n->dom_min = iv.min;
  n->dom_extent = iv.extent;
  return n;
}

IterVarRef derived_iter(const std::string& name, ir::IterKind kind) {
  auto n = std::make_shared<IterVarNode>();
  n->var = ir::Var(name);
  n->kind = kind;
  return n;
}

void check_iter_id(const Stage& s, int id) {
  MRD_USER_CHECK(id >= 0 && static_cast<size_t>(id) < s.leaf_iters.size(), "iterator id ", id,
                 " out of range: stage ", s.op->name, " has ", s.leaf_iters.size(), " iterators");
}

/// Re-points attachments of other stages from `from` to `to` (the auto_scheduler state's
/// attach-map update on split and fuse).
void move_attachments(Schedule* sch, const IterVarNode* from, const IterVarRef& to) {
  if (sch == nullptr) return;
  for (const StageRef& st : sch->stages) {
    if (st->attach == AttachKind::At && st->attach_iter.get() == from) st->attach_iter = to;
  }
}
}  // namespace

StageRef make_stage(ir::Operation op, ir::Operation origin) {
  auto s = std::make_shared<Stage>();
  s->op = std::move(op);
  s->origin = std::move(origin);
  for (const ir::IterVar& iv : s->op->axis) s->root_iters.push_back(root_iter(iv));
  for (const ir::IterVar& iv : s->op->reduce_axis) s->root_iters.push_back(root_iter(iv));
  s->leaf_iters = s->root_iters;
  return s;
}

Schedule Schedule::create(const dag::ComputeDAG& dag) {
  Schedule sch;
  sch.params = dag.tensors();
  for (const ir::Operation& op : dag.ops()) sch.stages.push_back(make_stage(op, op));
  return sch;
}

Stage* Schedule::producer_of(const ir::OperationNode* op) const {
  for (const StageRef& s : stages) {
    if (s->origin.get() == op || s->op.get() == op) return s.get();
  }
  return nullptr;
}

int Schedule::stage_index(const Stage* s) const {
  for (size_t i = 0; i < stages.size(); ++i) {
    if (stages[i].get() == s) return static_cast<int>(i);
  }
  return -1;
}

bool Schedule::is_param(const ir::OperationNode* op) const {
  for (const ir::Tensor& t : params) {
    if (t.op().get() == op) return true;
  }
  return false;
}

std::vector<IterVarRef> split(Schedule& sch, Stage& s, int iter_id,
                              const std::vector<int64_t>& lengths, bool inner_to_outer) {
  MRD_USER_CHECK(!s.is_placeholder(), "cannot split placeholder ", s.op->name);
  check_iter_id(s, iter_id);
  MRD_USER_CHECK(!lengths.empty(), "a split needs at least one length");
  MRD_USER_CHECK(s.leaf_iters.size() + lengths.size() <= kMaxStageIters, "stage ", s.op->name,
                 " would have more than ", kMaxStageIters, " iterators");
  for (int64_t len : lengths) {
    MRD_USER_CHECK(len >= 1 && len <= std::numeric_limits<int32_t>::max(), "split length ", len,
                   " out of range");
  }
  IterVarRef orig = s.leaf_iters[iter_id];
  std::vector<IterVarRef> pieces;  // outer→inner
  if (inner_to_outer) {
    IterVarRef outer = orig;
    std::vector<IterVarRef> inners;
    for (size_t k = lengths.size(); k-- > 0;) {
      SplitRelation r;
      r.parent = outer;
      r.outer = derived_iter(outer->name() + ".outer", outer->kind);
      r.inner = derived_iter(outer->name() + ".inner", outer->kind);
      r.factor = lengths[k];
      s.relations.push_back(r);
      inners.push_back(r.inner);
      outer = r.outer;
    }
    pieces.push_back(outer);
    pieces.insert(pieces.end(), inners.rbegin(), inners.rend());
  } else {
    IterVarRef inner = orig;
    for (int64_t len : lengths) {
      SplitRelation r;
      r.parent = inner;
      r.outer = derived_iter(inner->name() + ".outer", inner->kind);
      r.inner = derived_iter(inner->name() + ".inner", inner->kind);
      r.nparts = len;
      s.relations.push_back(r);
      pieces.push_back(r.outer);
      inner = r.inner;
    }
    pieces.push_back(inner);
  }
  move_attachments(&sch, orig.get(), pieces.front());
  s.leaf_iters.erase(s.leaf_iters.begin() + iter_id);
  s.leaf_iters.insert(s.leaf_iters.begin() + iter_id, pieces.begin(), pieces.end());
  return pieces;
}

IterVarRef fuse(Schedule& sch, Stage& s, const std::vector<int>& ids) {
  MRD_USER_CHECK(!s.is_placeholder(), "cannot fuse iterators of placeholder ", s.op->name);
  MRD_USER_CHECK(!ids.empty(), "fuse needs at least one iterator");
  for (size_t k = 0; k < ids.size(); ++k) {
    check_iter_id(s, ids[k]);
    if (k > 0) {
      MRD_USER_CHECK(ids[k] == ids[k - 1] + 1, "fused iterators must be consecutive, got ",
                     ids[k - 1], " then ", ids[k]);
    }
  }
  IterVarRef fused = s.leaf_iters[ids[0]];
  for (size_t k = 1; k < ids.size(); ++k) {
    IterVarRef inner = s.leaf_iters[ids[k]];
    MRD_USER_CHECK(fused->kind == inner->kind, "cannot fuse ",
                   fused->kind == ir::IterKind::Reduce ? "reduction" : "data-parallel",
                   " iterator ", fused->name(), " with ",
                   inner->kind == ir::IterKind::Reduce ? "reduction" : "data-parallel",
                   " iterator ", inner->name());
    ir::IterKind kind = fused->kind;
    FuseRelation r{fused, inner,
                   derived_iter(fused->name() + "." + inner->name() + ".fused", kind)};
    s.relations.push_back(r);
    fused = r.fused;
  }
  for (int id : ids) move_attachments(&sch, s.leaf_iters[id].get(), fused);
  s.leaf_iters.erase(s.leaf_iters.begin() + ids.front(), s.leaf_iters.begin() + ids.back() + 1);
  s.leaf_iters.insert(s.leaf_iters.begin() + ids.front(), fused);
  return fused;
}

void reorder(Stage& s, const std::vector<int>& order) {
  MRD_USER_CHECK(order.size() == s.leaf_iters.size(), "reorder needs all ", s.leaf_iters.size(),
                 " iterators of stage ", s.op->name, ", got ", order.size());
  std::vector<bool> seen(order.size(), false);
  std::vector<IterVarRef> leaves;
  for (int id : order) {
    check_iter_id(s, id);
    MRD_USER_CHECK(!seen[id], "iterator ", id, " appears twice in the reorder");
    seen[id] = true;
    leaves.push_back(s.leaf_iters[id]);
  }
  s.leaf_iters = std::move(leaves);
}

void compute_at(Stage& s, Stage& target, int target_iter_id) {
  MRD_USER_CHECK(!s.is_placeholder(), "cannot compute placeholder ", s.op->name, " at a loop");
  MRD_USER_CHECK(!target.is_placeholder(), "cannot compute at placeholder ", target.op->name);
  MRD_USER_CHECK(&s != &target, "cannot compute stage ", s.op->name, " at itself");
  check_iter_id(target, target_iter_id);
  s.attach = AttachKind::At;
  s.attach_stage = &target;
  s.attach_iter = target.leaf_iters[target_iter_id];
}

void compute_root(Stage& s) {
  MRD_USER_CHECK(!s.is_placeholder(), "cannot compute_root placeholder ", s.op->name);
  s.attach = AttachKind::Root;
  s.attach_stage = nullptr;
  s.attach_iter.reset();
}

void compute_inline(Schedule& sch, Stage& s) {
  MRD_USER_CHECK(!s.is_placeholder(), "cannot inline placeholder ", s.op->name);
  MRD_USER_CHECK(s.op->reduce_axis.empty(), "cannot inline ", s.op->name, ": it has a reduction");
  MRD_USER_CHECK(!sch.is_param(s.origin.get()), "cannot inline ", s.op->name,
                 ": it is a function argument (output)");
  for (const StageRef& st : sch.stages) {
    MRD_USER_CHECK(!(st->attach == AttachKind::At && st->attach_stage == &s), "cannot inline ",
                   s.op->name, ": stage ", st->op->name, " is computed at it");
  }
  s.attach = AttachKind::Inline;
  s.attach_stage = nullptr;
  s.attach_iter.reset();
}

}  // namespace mrd::schedule
