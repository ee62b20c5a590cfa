#include "common/lower/schedule_ops.h"

#include <unordered_set>

#include "common/ir/stmt_functor.h"
#include "common/ir/substitute.h"
#include "common/lower/simplify.h"
#include "common/util/error.h"

namespace mrd::lower {

using namespace ir;
using schedule::AttachKind;
using schedule::FuseRelation;
using schedule::IterAnnotation;
using schedule::IterVarNode;
using schedule::SplitRelation;
using schedule::Stage;

namespace {

using IterExprs = std::unordered_map<const IterVarNode*, Expr>;
using IterSet = std::unordered_set<const IterVarNode*>;

const VarNode* var_of(const IterVarNode* iv) {
  return iv->var.as<VarNode>();
}

Expr imm(int64_t v) {
  return index_imm(v, "loop bound");
}

class NestBuilder {
 public:
  explicit NestBuilder(LowerContext& ctx) : ctx_(ctx) {}

  Stmt run() {
    for (const schedule::StageRef& s : ctx_.sch.stages) {
      if (!is_computed(*s)) continue;
      std::vector<int64_t> shape;
      for (size_t d = 0; d < s->op->axis.size(); ++d) {
        shape.push_back(ctx_.ranges.at(s->root_iters[d].get()).extent);
      }
      ctx_.stage_buffers[s.get()] = BufferNode::make(s->op->name, s->op->dtype, shape, s->scope);
      if (s->attach == AttachKind::At) attached_[s->attach_iter.get()].push_back(s.get());
    }
    std::vector<Stmt> top;
    std::vector<const Stage*> roots;
    for (const schedule::StageRef& s : ctx_.sch.stages) {
      if (is_computed(*s) && s->attach == AttachKind::Root) {
        top.push_back(build_stage(*s));
        roots.push_back(s.get());
      }
    }
    Stmt body = SeqNode::make(std::move(top));
    for (size_t i = roots.size(); i-- > 0;) {
      body = AllocateNode::make(ctx_.stage_buffers.at(roots[i]), body);
    }
    return body;
  }

 private:
  /// Offsets (value - range min) of every iterator, given the leaves' values.
  IterExprs pass_up(const Stage& s, IterExprs vals) {
    for (auto it = s.relations.rbegin(); it != s.relations.rend(); ++it) {
      if (auto* r = std::get_if<SplitRelation>(&*it)) {
        Expr f = imm(ctx_.ranges.at(r->inner.get()).extent);
        vals[r->parent.get()] =
            simplify_expr(vals.at(r->outer.get()) * f + vals.at(r->inner.get()));
      } else if (auto* fu = std::get_if<FuseRelation>(&*it)) {
        Expr ie = imm(ctx_.ranges.at(fu->inner.get()).extent);
        Expr f = vals.at(fu->fused.get());
        vals[fu->outer.get()] = simplify_expr(floordiv(f, ie), ctx_.loop_ranges);
        vals[fu->inner.get()] = simplify_expr(floormod(f, ie), ctx_.loop_ranges);
      }
    }
    return vals;
  }

  /// Guards of s: every root or intermediate iterator whose value may leave its range (TVM's
  /// PassUpBoundCheck / MakeBoundCheck), and roots of attached stages against the op's domain.
  /// Iterators in `skip` (the reduction ones, for the init) are left out.
  Expr guards(const Stage& s, const IterExprs& off, const VarMap& root_val, const IterSet& skip,
              const VarRanges& ranges) {
    std::vector<Expr> conds;
    auto check_range = [&](const IterVarNode* iv) {
      if (skip.count(iv)) return;
      Expr o = off.at(iv);
      int64_t ext = ctx_.ranges.at(iv).extent;
      auto ob = const_bound(o, ranges);
      if (!ob || ob->hi >= ext) conds.push_back(o < imm(ext));
    };
    std::unordered_set<const IterVarNode*> roots;
    for (const schedule::IterVarRef& r : s.root_iters) roots.insert(r.get());
    for (const schedule::Relation& rel : s.relations) {
      if (auto* r = std::get_if<SplitRelation>(&rel)) {
        if (!roots.count(r->parent.get())) check_range(r->parent.get());
      } else if (auto* f = std::get_if<FuseRelation>(&rel)) {
        if (!roots.count(f->outer.get())) check_range(f->outer.get());
        if (!roots.count(f->inner.get())) check_range(f->inner.get());
      }
    }
    for (const schedule::IterVarRef& r : s.root_iters) {
      if (skip.count(r.get())) continue;
      const IterRange& rr = ctx_.ranges.at(r.get());
      check_range(r.get());
      const int64_t* cm = as_const_int(rr.min);
      bool same_as_dom = cm && *cm == r->dom_min && rr.extent == r->dom_extent;
      if (!same_as_dom) {
        Expr v = root_val.at(var_of(r.get()));
        auto vb = const_bound(v, ranges);
        if (!vb || vb->lo < r->dom_min) conds.push_back(v >= imm(r->dom_min));
        if (!vb || vb->hi >= r->dom_min + r->dom_extent) {
          conds.push_back(v < imm(r->dom_min + r->dom_extent));
        }
      }
    }
    Expr all;
    for (const Expr& c : conds) {
      Expr l = likely(c);
      all = all.defined() ? (all && l) : l;
    }
    return all;
  }

  VarMap root_values(const Stage& s, const IterExprs& off) {
    VarMap out;
    for (const schedule::IterVarRef& r : s.root_iters) {
      const IterRange& rr = ctx_.ranges.at(r.get());
      out[var_of(r.get())] = simplify_expr(rr.min + off.at(r.get()));
    }
    return out;
  }

  static Stmt guarded(const Expr& cond, Stmt s) {
    return cond.defined() ? IfThenElseNode::make(cond, std::move(s)) : s;
  }

  std::vector<Expr> store_indices(const Stage& s, const VarMap& root_val) {
    std::vector<Expr> idx;
    for (size_t d = 0; d < s.op->axis.size(); ++d) {
      idx.push_back(root_val.at(var_of(s.root_iters[d].get())));
    }
    return idx;
  }

  ForKind kind_of(const Stage& s, const IterVarNode* iv) {
    auto it = s.annotations.find(iv);
    if (it == s.annotations.end()) return ForKind::Serial;
    switch (it->second) {
      case IterAnnotation::Unroll:
        return ForKind::Unrolled;
      case IterAnnotation::Vectorize:
        return ForKind::Vectorized;
      case IterAnnotation::Parallel:
        return ForKind::Parallel;
      default:
        return ForKind::Serial;
    }
  }

  /// Loop i of stage s around body, with the stages computed at that loop injected first.
  Stmt wrap(const Stage& s, size_t i, Stmt body) {
    const IterVarNode* leaf = s.leaf_iters[i].get();
    auto at = attached_.find(leaf);
    if (at != attached_.end()) {
      std::vector<Stmt> seq;
      for (const Stage* p : at->second) seq.push_back(build_stage(*p));
      seq.push_back(body);
      body = SeqNode::make(std::move(seq));
      for (size_t k = at->second.size(); k-- > 0;) {
        body = AllocateNode::make(ctx_.stage_buffers.at(at->second[k]), body);
      }
    }
    int64_t ext = ctx_.ranges.at(leaf).extent;
    auto pr = s.auto_unroll_max_step.find(leaf);
    int64_t unroll = pr == s.auto_unroll_max_step.end() ? -1 : pr->second;
    if (ext == 1 && unroll < 0) return body;
    return ForNode::make(leaf->var, Expr(0), imm(ext), kind_of(s, leaf), body, unroll);
  }

  Stmt build_stage(const Stage& s) {
    size_t n = s.leaf_iters.size();
    // Which iterators depend on a reduction axis (TVM's PassDownFlag).
    std::unordered_set<const IterVarNode*> red;
    for (const schedule::IterVarRef& r : s.root_iters) {
      if (r->kind == IterKind::Reduce) red.insert(r.get());
    }
    for (const schedule::Relation& rel : s.relations) {
      if (auto* r = std::get_if<SplitRelation>(&rel)) {
        if (red.count(r->parent.get())) {
          red.insert(r->outer.get());
          red.insert(r->inner.get());
        }
      } else if (auto* f = std::get_if<FuseRelation>(&rel)) {
        if (red.count(f->outer.get()) || red.count(f->inner.get())) red.insert(f->fused.get());
      }
    }

    IterExprs leaf_vals;
    for (const schedule::IterVarRef& l : s.leaf_iters) {
      leaf_vals[l.get()] = ctx_.ranges.at(l.get()).extent == 1 ? Expr(0) : Expr(l->var);
    }
    IterExprs off = pass_up(s, leaf_vals);
    VarMap root_val = root_values(s, off);
    std::vector<Expr> idx = store_indices(s, root_val);
    const Buffer& buf = ctx_.stage_buffers.at(&s);
    Expr body = ctx_.bodies.at(&s);
    Expr cond = guards(s, off, root_val, IterSet(), ctx_.loop_ranges);

    const ReduceNode* rd = body.as<ReduceNode>();
    if (rd == nullptr) {
      Stmt st = guarded(cond, StoreNode::make(buf, idx, substitute(body, root_val)));
      for (size_t i = n; i-- > 0;) st = wrap(s, i, st);
      return st;
    }

    Expr src = substitute(rd->source, root_val);
    Expr acc = TensorReadNode::make(s.origin, idx);
    Stmt update = StoreNode::make(buf, idx, reduce_combine(rd->op, acc, src));
    if (rd->condition.defined()) {
      update = IfThenElseNode::make(substitute(rd->condition, root_val), update);
    }
    update = guarded(cond, update);

    size_t nc = 0;
    while (nc < n && !red.count(s.leaf_iters[nc].get())) ++nc;
    // The init nest: common loops shared, later spatial loops re-created with fresh vars.
    IterExprs init_vals = leaf_vals;
    VarRanges init_ranges = ctx_.loop_ranges;
    std::vector<std::pair<Var, size_t>> init_loops;
    for (size_t i = nc; i < n; ++i) {
      const IterVarNode* l = s.leaf_iters[i].get();
      int64_t ext = ctx_.ranges.at(l).extent;
      if (red.count(l) || ext == 1) {
        init_vals[l] = Expr(0);
        continue;
      }
      Var v(l->name() + ".init");
      init_vals[l] = v;
      init_ranges[v.as<VarNode>()] = ConstRange{0, ext - 1};
      init_loops.emplace_back(v, i);
    }
    IterExprs init_off = pass_up(s, init_vals);
    VarMap init_root = root_values(s, init_off);
    Stmt init =
        StoreNode::make(buf, store_indices(s, init_root), reduce_identity(rd->op, rd->dtype));
    init = guarded(guards(s, init_off, init_root, red, init_ranges), init);
    for (size_t k = init_loops.size(); k-- > 0;) {
      const IterVarNode* l = s.leaf_iters[init_loops[k].second].get();
      init = ForNode::make(init_loops[k].first, Expr(0), imm(ctx_.ranges.at(l).extent),
                           kind_of(s, l), init);
    }

    Stmt st = update;
    for (size_t i = n; i-- > nc;) st = wrap(s, i, st);
    st = SeqNode::make({init, st});
    for (size_t i = nc; i-- > 0;) st = wrap(s, i, st);
    return st;
  }

  LowerContext& ctx_;
  std::unordered_map<const IterVarNode*, std::vector<const Stage*>> attached_;
};

class ParallelCheck : public StmtVisitor {
 public:
  void run(const Stmt& s) { visit(s); }

 protected:
  void visit_(const ForNode* op, const Stmt& self) override {
    bool par = op->for_kind == ForKind::Parallel;
    MRD_USER_CHECK(!(par && depth_ > 0), "nested parallel loops (", op->var.name(),
                   " inside another parallel loop) are not supported");
    depth_ += par;
    StmtVisitor::visit_(op, self);
    depth_ -= par;
  }

 private:
  int depth_ = 0;
};

}  // namespace

Stmt schedule_ops(LowerContext& ctx) {
  Stmt body = NestBuilder(ctx).run();
  ParallelCheck().run(body);
  return body;
}

}  // namespace mrd::lower
