#include "common/lower/infer_bound.h"

#include <algorithm>
#include <unordered_set>

#include "common/ir/expr_functor.h"
#include "common/ir/scalar_semantics.h"
#include "common/lower/arith.h"
#include "common/lower/int_set.h"
#include "common/lower/simplify.h"
#include "common/util/error.h"

namespace mrd::lower {

using namespace ir;
using schedule::AttachKind;
using schedule::FuseRelation;
using schedule::IterVarNode;
using schedule::SplitRelation;
using schedule::Stage;

namespace {

/// Deepest loop nest a stage may sit in (its own loops and those around its attach point).
constexpr size_t kMaxLoopDepth = 512;

const VarNode* var_of(const IterVarNode* iv) {
  return iv->var.as<VarNode>();
}

std::string attach_where(const Stage& s) {
  return s.attach_step >= 0 ? str_cat("step ", s.attach_step, " (CA): ") : std::string();
}

class BoundInferer {
 public:
  explicit BoundInferer(LowerContext& ctx) : ctx_(ctx) {}

  void run() {
    find_consumers();
    auto& stages = ctx_.sch.stages;
    for (size_t i = stages.size(); i-- > 0;) {
      Stage& s = *stages[i];
      if (!is_computed(s)) continue;
      MRD_USER_CHECK(attach_path(s).size() + s.leaf_iters.size() <= kMaxLoopDepth, "stage ",
                     s.op->name, " would be nested more than ", kMaxLoopDepth, " loops deep");
      infer_roots(s);
      pass_down(s);
    }
  }

 private:
  void find_consumers() {
    for (const schedule::StageRef& x : ctx_.sch.stages) {
      if (!is_computed(*x)) continue;
      post_order_visit(ctx_.bodies.at(x.get()), [&](const Expr& e) {
        if (const TensorReadNode* r = e.as<TensorReadNode>()) {
          Stage* p = ctx_.sch.producer_of(r->op.get());
          if (p == nullptr) return;
          auto& list = consumers_[p];
          if (std::find(list.begin(), list.end(), x.get()) == list.end()) list.push_back(x.get());
        }
      });
    }
  }

  /// The loops around a stage's nest, innermost first: the target's leaves at and above the
  /// attach point, then the target's own attach path.
  std::vector<const IterVarNode*> attach_path(const Stage& s) {
    std::vector<const IterVarNode*> path;
    const Stage* cur = &s;
    std::unordered_set<const Stage*> seen;
    while (cur->attach == AttachKind::At) {
      MRD_USER_CHECK(seen.insert(cur).second, attach_where(*cur), "compute_at forms a cycle");
      const Stage* t = cur->attach_stage;
      MRD_USER_CHECK(is_computed(*t), attach_where(*cur), "stage ", cur->op->name,
                     " is computed at stage ", t->op->name, ", which is not computed itself");
      int idx = t->leaf_index(cur->attach_iter.get());
      MRD_USER_CHECK(idx >= 0, attach_where(*cur), "the loop stage ", cur->op->name,
                     " is computed at is no longer a loop of stage ", t->op->name);
      for (int k = idx; k >= 0; --k) path.push_back(t->leaf_iters[k].get());
      cur = t;
    }
    return path;
  }

  void infer_roots(Stage& s) {
    size_t n_axis = s.op->axis.size();
    for (size_t r = 0; r < s.root_iters.size(); ++r) {
      const IterVarNode* iv = s.root_iters[r].get();
      MRD_USER_CHECK(fits(DType::Int32, iv->dom_min) && fits(DType::Int32, iv->dom_extent) &&
                         fits(DType::Int32, iv->dom_min + iv->dom_extent),
                     "axis ", iv->name(), " of ", s.op->name, " with minimum ", iv->dom_min,
                     " and extent ", iv->dom_extent, " does not fit an int32 index");
      ctx_.ranges[iv] = IterRange{index_imm(iv->dom_min, "axis minimum"), iv->dom_extent};
    }
    // As TVM's InferRootBound: a function argument (an output) gets its full domain; any
    // other stage, attached or at the root, what its consumers read of it.
    if (ctx_.sch.is_param(s.origin.get()) || !consumers_.count(&s)) return;
    std::vector<std::optional<IntSet>> region = consumer_region(s);
    for (size_t d = 0; d < n_axis; ++d) {
      const IterVarNode* iv = s.root_iters[d].get();
      if (!region[d]) continue;
      Expr mn = simplify_expr(region[d]->min);
      Expr ext_e = simplify_expr(region[d]->max - mn + Expr(1));
      std::optional<int64_t> ext;
      if (const int64_t* c = as_const_int(ext_e)) {
        ext = *c;
      } else if (auto b = const_bound(ext_e, ctx_.loop_ranges)) {
        ext = b->hi;
      }
      if (!ext || *ext >= iv->dom_extent) continue;  // the full domain
      if (*ext < 1) ext = 1;
      ctx_.ranges[iv] = IterRange{mn, *ext};
    }
  }

  /// Per output dimension of s: the union of what its consumers read, or nullopt for "all".
  /// The consumers' loops inside s's attach point range over their extent, those at or above
  /// it are fixed to their loop variable; at the root, every loop ranges.
  std::vector<std::optional<IntSet>> consumer_region(const Stage& s) {
    size_t n_axis = s.op->axis.size();
    std::vector<std::optional<IntSet>> region(n_axis);
    std::vector<bool> whole(n_axis, false), any(n_axis, false);
    std::vector<const IterVarNode*> s_path = attach_path(s);
    std::unordered_set<const IterVarNode*> stage_attach(s_path.begin(), s_path.end());
    bool at_root = s.attach != AttachKind::At;
    auto it = consumers_.find(&s);
    MRD_USER_CHECK(it != consumers_.end(), attach_where(s), "stage ", s.op->name,
                   " is computed at stage ", s.attach_stage->op->name, " but no stage reads it");
    for (const Stage* x : it->second) {
      SetMap dom;
      std::unordered_map<const IterVarNode*, IntSet> offsets;
      bool found = false;
      for (size_t k = x->leaf_iters.size(); k-- > 0;) {
        const IterVarNode* leaf = x->leaf_iters[k].get();
        if (stage_attach.count(leaf)) found = true;
        int64_t ext = ctx_.ranges.at(leaf).extent;
        if (ext == 1) {
          offsets[leaf] = IntSet::point(Expr(0));
        } else if (found) {
          offsets[leaf] = IntSet::point(leaf->var);
        } else {
          offsets[leaf] = IntSet::range(0, ext - 1);
        }
      }
      for (const IterVarNode* iv : attach_path(*x)) {
        if (stage_attach.count(iv)) found = true;
        int64_t ext = ctx_.ranges.at(iv).extent;
        if (ext == 1) {
          dom[var_of(iv)] = IntSet::point(Expr(0));
        } else if (!found) {
          dom[var_of(iv)] = IntSet::range(0, ext - 1);
        }
      }
      MRD_USER_CHECK(found || at_root, attach_where(s), "stage ", s.op->name, " is computed at stage ",
                     s.attach_stage->op->name, ", but its consumer ", x->op->name,
                     " does not run inside that loop nest");
      pass_up(*x, offsets);
      bool roots_ok = true;
      for (const schedule::IterVarRef& r : x->root_iters) {
        const IterRange& rr = ctx_.ranges.at(r.get());
        const IntSet& off = offsets.at(r.get());
        auto ms = eval_set(rr.min, dom);
        if (!ms) {
          roots_ok = false;
          break;
        }
        dom[var_of(r.get())] =
            IntSet::of(simplify_expr(ms->min + off.min), simplify_expr(ms->max + off.max));
      }
      post_order_visit(ctx_.bodies.at(x), [&](const Expr& e) {
        const TensorReadNode* rd = e.as<TensorReadNode>();
        if (rd == nullptr || ctx_.sch.producer_of(rd->op.get()) != &s) return;
        for (size_t d = 0; d < n_axis; ++d) {
          std::optional<IntSet> set = roots_ok ? eval_set(rd->indices[d], dom) : std::nullopt;
          if (!set) {
            whole[d] = true;
            continue;
          }
          if (!any[d]) {
            region[d] = set;
            any[d] = true;
            continue;
          }
          if (!region[d]) continue;
          region[d]->min = pick(region[d]->min, set->min, true);
          region[d]->max = pick(region[d]->max, set->max, false);
          if (!region[d]->min.defined() || !region[d]->max.defined()) region[d].reset();
        }
      });
    }
    for (size_t d = 0; d < n_axis; ++d) {
      if (whole[d]) region[d].reset();
    }
    return region;
  }

  /// The smaller (or larger) of two bounds when their difference is constant, else undefined.
  static Expr pick(const Expr& a, const Expr& b, bool smaller) {
    if (!a.defined() || !b.defined()) return Expr();
    Expr d = simplify_expr(b - a);
    const int64_t* c = as_const_int(d);
    if (c == nullptr) return Expr();
    return (smaller ? *c < 0 : *c > 0) ? b : a;
  }

  void pass_up(const Stage& x, std::unordered_map<const IterVarNode*, IntSet>& sets) {
    for (auto it = x.relations.rbegin(); it != x.relations.rend(); ++it) {
      if (auto* r = std::get_if<SplitRelation>(&*it)) {
        const IntSet& o = sets.at(r->outer.get());
        const IntSet& i = sets.at(r->inner.get());
        Expr f = index_imm(ctx_.ranges.at(r->inner.get()).extent, "split extent");
        sets[r->parent.get()] =
            IntSet::of(simplify_expr(o.min * f + i.min), simplify_expr(o.max * f + i.max));
      } else if (auto* fu = std::get_if<FuseRelation>(&*it)) {
        const IntSet& fs = sets.at(fu->fused.get());
        int64_t ie = ctx_.ranges.at(fu->inner.get()).extent;
        int64_t oe = ctx_.ranges.at(fu->outer.get()).extent;
        Expr iex = index_imm(ie, "fused inner extent");
        if (fs.is_point()) {
          sets[fu->outer.get()] = IntSet::point(simplify_expr(floordiv(fs.min, iex)));
          sets[fu->inner.get()] = IntSet::point(simplify_expr(floormod(fs.min, iex)));
          continue;
        }
        const int64_t* lo = as_const_int(fs.min);
        const int64_t* hi = as_const_int(fs.max);
        if (lo && hi && *lo == 0 && *hi == index_mul(oe, ie, "fused extent") - 1) {
          sets[fu->outer.get()] = IntSet::range(0, oe - 1);
        } else {
          sets[fu->outer.get()] = IntSet::of(simplify_expr(floordiv(fs.min, iex)),
                                             simplify_expr(floordiv(fs.max, iex)));
        }
        sets[fu->inner.get()] = IntSet::range(0, ie - 1);
      }
    }
  }

  void pass_down(const Stage& s) {
    for (const schedule::Relation& rel : s.relations) {
      if (auto* r = std::get_if<SplitRelation>(&rel)) {
        int64_t e = ctx_.ranges.at(r->parent.get()).extent;
        int64_t outer, inner;
        // ceil(e / n) for e >= 1, n >= 1, written so that it cannot overflow.
        auto ceil_div = [](int64_t e, int64_t n) { return (e - 1) / n + 1; };
        MRD_USER_CHECK(e >= 1 && (r->factor > 0 || r->nparts > 0), "split of ", r->parent->name(),
                       " with extent ", e, " needs a positive factor or number of parts");
        if (r->factor > 0) {
          inner = std::min(r->factor, e);
          outer = ceil_div(e, r->factor);
        } else {
          outer = std::min(r->nparts, e);
          inner = ceil_div(e, r->nparts);
        }
        ctx_.ranges[r->outer.get()] = IterRange{Expr(0), outer};
        ctx_.ranges[r->inner.get()] = IterRange{Expr(0), inner};
      } else if (auto* f = std::get_if<FuseRelation>(&rel)) {
        int64_t e = index_mul(ctx_.ranges.at(f->outer.get()).extent,
                              ctx_.ranges.at(f->inner.get()).extent, "fused extent");
        ctx_.ranges[f->fused.get()] = IterRange{Expr(0), e};
      }
    }
    for (const schedule::IterVarRef& l : s.leaf_iters) {
      ctx_.loop_ranges[var_of(l.get())] = ConstRange{0, ctx_.ranges.at(l.get()).extent - 1};
    }
  }

  LowerContext& ctx_;
  std::unordered_map<const Stage*, std::vector<const Stage*>> consumers_;
};

}  // namespace

void infer_bound(LowerContext& ctx) {
  BoundInferer(ctx).run();
}

}  // namespace mrd::lower
