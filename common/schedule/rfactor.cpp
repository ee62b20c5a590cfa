// te::Schedule::rfactor: a reduction whose leaf iterator `axis` is factored out becomes
// `<op>.rf`, with `axis` as a new data-parallel dimension at position factor_axis and the other
// touched reduction leaves as its reduction axes; the original stage becomes `<op>.repl`, the
// reduction of `<op>.rf` over that dimension.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "common/ir/substitute.h"
#include "common/ir/te.h"
#include "common/schedule/te_schedule.h"
#include "common/util/error.h"

namespace mrd::schedule {

namespace {

using Touched = std::unordered_set<const IterVarNode*>;

Touched touched_iters(const Stage& s, const IterVarNode* axis) {
  Touched t{axis};
  for (auto it = s.relations.rbegin(); it != s.relations.rend(); ++it) {
    if (auto* r = std::get_if<SplitRelation>(&*it)) {
      if (t.count(r->outer.get()) || t.count(r->inner.get())) t.insert(r->parent.get());
    } else if (auto* f = std::get_if<FuseRelation>(&*it)) {
      if (t.count(f->fused.get())) {
        t.insert(f->outer.get());
        t.insert(f->inner.get());
      }
    }
  }
  for (const Relation& rel : s.relations) {
    if (auto* r = std::get_if<SplitRelation>(&rel)) {
      if (t.count(r->parent.get())) {
        t.insert(r->outer.get());
        t.insert(r->inner.get());
      }
    } else if (auto* f = std::get_if<FuseRelation>(&rel)) {
      if (t.count(f->outer.get()) || t.count(f->inner.get())) t.insert(f->fused.get());
    }
  }
  return t;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

int rfactor(Schedule& sch, int stage_id, int iter_id, int factor_axis) {
  Stage& s = *sch.stages.at(stage_id);
  MRD_USER_CHECK(!s.is_placeholder(), "cannot rfactor placeholder ", s.op->name);
  const ir::OperationNode& old = *s.op;
  MRD_USER_CHECK(sch.stages.size() < kMaxStages, "the schedule would have more than ", kMaxStages,
                 " stages");
  const ir::ReduceNode* red = old.body.as<ir::ReduceNode>();
  MRD_USER_CHECK(red != nullptr, "cannot rfactor ", old.name, ": it is not a reduction");
  MRD_USER_CHECK(iter_id >= 0 && static_cast<size_t>(iter_id) < s.leaf_iters.size(), "iterator id ",
                 iter_id, " out of range: stage ", old.name, " has ", s.leaf_iters.size(),
                 " iterators");
  IterVarRef axis = s.leaf_iters[iter_id];
  MRD_USER_CHECK(axis->kind == ir::IterKind::Reduce, "can only rfactor a reduction iterator, ",
                 axis->name(), " is data-parallel");
  int ndim = static_cast<int>(old.axis.size());
  MRD_USER_CHECK(factor_axis >= 0 && factor_axis <= ndim, "factor_iter_id ", factor_axis,
                 " out of range [0, ", ndim, "]");

  Touched touched = touched_iters(s, axis.get());
  for (const IterVarRef& r : s.root_iters) {
    MRD_USER_CHECK(r->kind == ir::IterKind::Reduce || !touched.count(r.get()),
                   "the factored iterator touches data-parallel axis ", r->name());
  }

  // Domains of touched iterators (TVM's PassDownDomain with allow_missing: inner = factor).
  std::unordered_map<const IterVarNode*, std::pair<int64_t, int64_t>> dom;  // min, extent
  for (const IterVarRef& r : s.root_iters) {
    if (touched.count(r.get())) dom[r.get()] = {r->dom_min, r->dom_extent};
  }
  for (const Relation& rel : s.relations) {
    if (auto* r = std::get_if<SplitRelation>(&rel)) {
      auto it = dom.find(r->parent.get());
      if (it == dom.end()) continue;
      int64_t ext = it->second.second;
      if (r->factor > 0) {
        dom[r->outer.get()] = {0, ceil_div(ext, r->factor)};
        dom[r->inner.get()] = {0, r->factor};
      } else {
        dom[r->outer.get()] = {0, r->nparts};
        dom[r->inner.get()] = {0, ceil_div(ext, r->nparts)};
      }
    } else if (auto* f = std::get_if<FuseRelation>(&rel)) {
      auto a = dom.find(f->outer.get()), b = dom.find(f->inner.get());
      if (a == dom.end() || b == dom.end()) continue;
      dom[f->fused.get()] = {0, a->second.second * b->second.second};
    }
  }
  for (const IterVarNode* t : touched) {
    MRD_USER_CHECK(dom.count(t), "cannot rfactor ", axis->name(),
                   ": it is fused with an iterator of another reduction axis");
  }
  MRD_USER_CHECK(dom.at(axis.get()).first == 0, "can only factor a reduction domain starting at 0");

  // Index of each touched root in terms of the touched leaves (PassUpIndex).
  std::unordered_map<const IterVarNode*, ir::Expr> value;
  std::unordered_map<const IterVarNode*, int64_t> vmax;  // largest offset of the value
  for (const IterVarRef& l : s.leaf_iters) {
    if (!touched.count(l.get())) continue;
    int64_t ext = dom.at(l.get()).second;
    value[l.get()] = ext == 1 ? ir::Expr(0) : ir::Expr(l->var);
    vmax[l.get()] = ext - 1;
  }
  for (auto it = s.relations.rbegin(); it != s.relations.rend(); ++it) {
    if (auto* r = std::get_if<SplitRelation>(&*it)) {
      if (!value.count(r->outer.get()) || !value.count(r->inner.get())) continue;
      int64_t f = dom.at(r->inner.get()).second;
      ir::Expr v = value[r->outer.get()] * ir::Expr(static_cast<int>(f)) + value[r->inner.get()];
      int64_t mn = dom.at(r->parent.get()).first;
      value[r->parent.get()] = mn == 0 ? v : v + ir::Expr(static_cast<int>(mn));
      vmax[r->parent.get()] = vmax[r->outer.get()] * f + vmax[r->inner.get()];
    } else if (auto* f = std::get_if<FuseRelation>(&*it)) {
      if (!value.count(f->fused.get())) continue;
      ir::Expr ie(static_cast<int>(dom.at(f->inner.get()).second));
      value[f->outer.get()] = ir::floordiv(value[f->fused.get()], ie);
      value[f->inner.get()] = ir::floormod(value[f->fused.get()], ie);
      int64_t fmax = vmax.at(f->fused.get());
      int64_t iext = dom.at(f->inner.get()).second;
      vmax[f->outer.get()] = fmax / iext;
      vmax[f->inner.get()] = std::min(fmax, iext - 1);
    }
  }

  ir::VarMap vsub;
  ir::Expr pred;
  auto add_pred = [&](const ir::Expr& c) { pred = pred.defined() ? (pred && c) : c; };
  // Intermediate iterators that may run past their extent (TVM's PassUpBoundCheck).
  std::unordered_set<const IterVarNode*> roots;
  for (const IterVarRef& r : s.root_iters) roots.insert(r.get());
  auto check = [&](const IterVarRef& iv) {
    if (roots.count(iv.get()) || !value.count(iv.get())) return;
    int64_t ext = dom.at(iv.get()).second;
    if (vmax.at(iv.get()) >= ext) add_pred(value.at(iv.get()) < ir::Expr(static_cast<int>(ext)));
  };
  for (const Relation& rel : s.relations) {
    if (auto* r = std::get_if<SplitRelation>(&rel)) {
      check(r->parent);
    } else if (auto* f = std::get_if<FuseRelation>(&rel)) {
      check(f->outer);
      check(f->inner);
    }
  }
  std::vector<ir::IterVar> rf_reduce;
  for (const ir::IterVar& iv : red->axis) {
    const IterVarRef* root = nullptr;
    for (const IterVarRef& r : s.root_iters) {
      if (r->var.same_as(iv.var)) root = &r;
    }
    MRD_CHECK(root != nullptr, "reduce axis without a root iterator");
    if (!touched.count(root->get())) {
      rf_reduce.push_back(iv);
      continue;
    }
    ir::Expr v = value.at(root->get());
    vsub[static_cast<const ir::VarNode*>(iv.var.get())] = v;
    if (vmax.at(root->get()) >= iv.extent) {
      ir::Expr off = iv.min == 0 ? v : v - ir::Expr(static_cast<int>(iv.min));
      add_pred(off < ir::Expr(static_cast<int>(iv.extent)));
    }
  }
  for (const IterVarRef& l : s.leaf_iters) {
    if (touched.count(l.get()) && l != axis) {
      rf_reduce.push_back(ir::IterVar{l->var, 0, dom.at(l.get()).second, ir::IterKind::Reduce});
    }
  }
  if (red->condition.defined()) {
    add_pred(ir::substitute(red->condition, vsub));
  }
  if (pred.defined()) pred = ir::likely(pred);

  std::vector<ir::IterVar> rf_axis;
  ir::IterVar factor_iv{axis->var, 0, dom.at(axis.get()).second, ir::IterKind::DataPar};
  for (int d = 0; d <= ndim; ++d) {
    if (d == factor_axis) rf_axis.push_back(factor_iv);
    if (d < ndim) rf_axis.push_back(old.axis[d]);
  }
  ir::Expr source = ir::substitute(red->source, vsub);
  ir::Expr rf_body;
  if (rf_reduce.empty()) {
    rf_body = pred.defined() ? ir::select(pred, source, ir::reduce_identity(red->op, red->dtype))
                             : source;
  } else {
    rf_body = ir::ReduceNode::make(red->op, source, rf_reduce, pred);
  }
  ir::Operation rf_op =
      ir::OperationNode::make_compute(old.name + ".rf", old.tag, rf_axis, rf_body);

  ir::IterVar repl_k = ir::reduce_axis(0, factor_iv.extent, axis->name() + ".v");
  std::vector<ir::IterVar> repl_axis;
  std::vector<ir::Expr> idx;
  for (int d = 0; d <= ndim; ++d) {
    if (d == factor_axis) idx.push_back(repl_k.var);
    if (d < ndim) {
      ir::Var v(old.axis[d].var.name());
      repl_axis.push_back(ir::IterVar{v, 0, old.axis[d].extent, ir::IterKind::DataPar});
      idx.push_back(v);
    }
  }
  ir::Expr repl_body =
      ir::ReduceNode::make(red->op, ir::TensorReadNode::make(rf_op, idx), {repl_k});
  ir::Operation repl_op =
      ir::OperationNode::make_compute(old.name + ".repl", old.tag, repl_axis, repl_body);

  StageRef fresh = make_stage(repl_op, s.origin);
  s.op = fresh->op;
  s.root_iters = fresh->root_iters;
  s.leaf_iters = fresh->leaf_iters;
  s.relations.clear();
  s.annotations.clear();
  s.auto_unroll_max_step.clear();
  sch.stages.insert(sch.stages.begin() + stage_id, make_stage(rf_op, rf_op));
  return stage_id;
}

}  // namespace mrd::schedule
