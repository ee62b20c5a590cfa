#include "common/lower/rewrite_layout.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "common/ir/expr_functor.h"
#include "common/ir/operation.h"
#include "common/lower/infer_bound.h"
#include "common/lower/inline_stages.h"
#include "common/lower/lower_context.h"
#include "common/schedule/apply_steps.h"
#include "common/util/error.h"

namespace mrd::lower {

using namespace ir;
using schedule::IterVarRef;
using schedule::Stage;

namespace {

/// An axis of a compute op by position: axis first, then reduce_axis (-1: a constant 0 index).
using AxisKey = int;

AxisKey axis_key(const OperationNode& op, const Expr& index) {
  if (const int64_t* c = as_const_int(index)) {
    if (*c == 0) return -1;
  }
  const VarNode* v = index.as<VarNode>();
  if (!v) return -2;
  for (size_t i = 0; i < op.axis.size(); ++i) {
    if (op.axis[i].var.get() == v) return static_cast<int>(i);
  }
  for (size_t i = 0; i < op.reduce_axis.size(); ++i) {
    if (op.reduce_axis[i].var.get() == v) return static_cast<int>(op.axis.size() + i);
  }
  return -2;
}

/// The axes indexing `placeholder` in op's body, one per dimension, or nullopt when a read is
/// not by axis variables (TVM requires it) or two reads differ.
std::optional<std::vector<AxisKey>> placeholder_axes(const OperationNode& op, const OperationNode* placeholder) {
  std::optional<std::vector<AxisKey>> out;
  bool ok = true;
  post_order_visit(op.body, [&](const Expr& e) {
    const TensorReadNode* r = e.as<TensorReadNode>();
    if (!r || r->op.get() != placeholder) return;
    std::vector<AxisKey> keys;
    for (const Expr& i : r->indices) keys.push_back(axis_key(op, i));
    for (AxisKey k : keys) ok &= k != -2;
    if (out && *out != keys) ok = false;
    out = keys;
  });
  if (!ok) return std::nullopt;
  return out;
}

/// The leaves of `iv`: itself, or for a fused iterator the iterators fused (TVM's orig_iters).
void expand_fused(const Stage& s, const IterVarRef& iv, std::vector<IterVarRef>& out) {
  for (const auto& rel : s.relations) {
    if (const auto* f = std::get_if<schedule::FuseRelation>(&rel); f && f->fused == iv) {
      expand_fused(s, f->outer, out);
      expand_fused(s, f->inner, out);
      return;
    }
  }
  out.push_back(iv);
}

/// The root position (axis then reduce_axis) an iterator of `s` derives from through splits.
AxisKey root_key(const Stage& s, IterVarRef iv) {
  for (bool moved = true; moved;) {
    moved = false;
    for (const auto& rel : s.relations) {
      if (const auto* sp = std::get_if<schedule::SplitRelation>(&rel); sp && (sp->outer == iv || sp->inner == iv)) {
        iv = sp->parent;
        moved = true;
        break;
      }
    }
  }
  for (size_t i = 0; i < s.root_iters.size(); ++i) {
    if (s.root_iters[i] == iv) return static_cast<int>(i);
  }
  return -2;
}

struct NewLayout {
  std::vector<int64_t> shape;
  std::vector<AxisKey> axes;
};

/// GetNewLayout: the stage's loops (after those of its attach stage up to the attach point),
/// fused loops expanded; the iterators from the attach stage take the axis of the stage's own
/// iterator as many positions later, as TVM names them.
NewLayout new_layout(const LowerContext& ctx, const Stage& s, const std::vector<AxisKey>& wanted) {
  std::vector<IterVarRef> iters;
  std::vector<AxisKey> keys;
  size_t before_attach = 0;
  if (s.attach == schedule::AttachKind::At && s.attach_stage) {
    const Stage& a = *s.attach_stage;
    int pos = a.leaf_index(s.attach_iter.get());
    for (int i = 0; i <= pos; ++i) expand_fused(a, a.leaf_iters[i], iters);
    before_attach = iters.size();
  }
  for (const IterVarRef& iv : s.leaf_iters) expand_fused(s, iv, iters);
  for (size_t i = before_attach; i < iters.size(); ++i) keys.push_back(root_key(s, iters[i]));
  std::unordered_set<AxisKey> want(wanted.begin(), wanted.end());
  NewLayout out;
  for (size_t i = 0; i < iters.size(); ++i) {
    size_t own = i < before_attach ? i + before_attach : i;
    if (own - before_attach >= keys.size()) continue;
    AxisKey k = keys[own - before_attach];
    if (!want.count(k)) continue;
    auto r = ctx.ranges.find(iters[i].get());
    out.shape.push_back(r == ctx.ranges.end() ? 1 : r->second.extent);
    out.axes.push_back(k);
  }
  return out;
}

/// Replaces reads of the ops in `map` by reads of their replacements.
class ReadReplacer : public ExprMutator {
 public:
  explicit ReadReplacer(const std::unordered_map<const OperationNode*, Operation>& map) : map_(map) {}
  Expr run(const Expr& e) { return visit(e); }

 protected:
  Expr visit_(const TensorReadNode* op, const Expr& self) override {
    bool changed = false;
    std::vector<Expr> idx = visit_all(op->indices, changed);
    auto it = map_.find(op->op.get());
    if (it == map_.end()) return changed ? TensorReadNode::make(op->op, std::move(idx)) : self;
    return TensorReadNode::make(it->second, std::move(idx));
  }

 private:
  const std::unordered_map<const OperationNode*, Operation>& map_;
};

/// Rebuilds every op downstream of the replaced ones; returns the new tensor list.
std::vector<Tensor> rebuild(const dag::ComputeDAG& dag, std::unordered_map<const OperationNode*, Operation> map) {
  for (const Operation& op : dag.ops()) {
    if (op->is_placeholder() || map.count(op.get())) continue;
    Expr body = ReadReplacer(map).run(op->body);
    if (body.same_as(op->body)) continue;
    Operation fresh = OperationNode::make_compute(op->name, op->tag, op->axis, body);
    map[op.get()] = OperationNode::with_layout_free_placeholders(fresh, op->layout_free_placeholders);
  }
  std::vector<Tensor> out;
  for (const Tensor& t : dag.tensors()) {
    auto it = map.find(t.op().get());
    out.push_back(it == map.end() ? t : Tensor(it->second));
  }
  return out;
}

void shift_stage_ids(std::vector<schedule::Step>& steps, int from) {
  for (schedule::Step& step : steps) {
    std::visit(
        [&](auto& s) {
          if (s.stage_id >= from) ++s.stage_id;
          if constexpr (std::is_same_v<std::decay_t<decltype(s)>, schedule::ComputeAtStep>) {
            if (s.target_stage_id >= from) ++s.target_stage_id;
          }
        },
        step);
  }
}

}  // namespace

std::optional<RewrittenLayout> rewrite_layout(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps,
                                              LayoutRewrite option) {
  if (option == LayoutRewrite::None) return std::nullopt;
  const bool pretransformed = option == LayoutRewrite::RewriteForPreTransformed;
  // As TVM's ApplySteps: the initial state (no steps) keeps its layout.
  bool any = false;
  for (const Operation& op : dag.ops()) any |= !op->layout_free_placeholders.empty();
  if (!any || steps.empty()) return std::nullopt;

  LowerContext ctx;
  ctx.dag = &dag;
  ctx.sch = schedule::apply_steps(dag, steps);
  inline_stages(ctx);
  infer_bound(ctx);

  const dag::ComputeDAG* current = &dag;
  std::optional<dag::ComputeDAG> rewritten;
  RewrittenLayout out{dag.tensors(), steps, {}};
  std::unordered_set<const OperationNode*> handled;
  int inserted = 0;  // transform stages added so far (each shifts later stage ids)
  for (size_t sid = 0; sid < ctx.sch.stages.size(); ++sid) {
    const Stage& s = *ctx.sch.stages[sid];
    if (s.is_placeholder() || s.attach == schedule::AttachKind::Inline) continue;
    for (const Operation& p : s.op->layout_free_placeholders) {
      if (handled.count(p.get())) continue;
      bool direct = false;
      for (const Operation& in : input_ops(*s.op)) direct |= in.get() == p.get();
      if (!direct) continue;
      handled.insert(p.get());
      auto orig = placeholder_axes(*s.op, p.get());
      if (!orig) continue;
      NewLayout layout = new_layout(ctx, s, *orig);
      if (layout.shape.empty()) continue;
      // Each axis' extents must multiply back to the placeholder's dimension.
      std::map<AxisKey, int64_t> product;
      for (size_t i = 0; i < layout.shape.size(); ++i) {
        int64_t& v = product.try_emplace(layout.axes[i], 1).first->second;
        v *= layout.shape[i];
      }
      bool exact = true;
      for (size_t d = 0; d < orig->size(); ++d) {
        if ((*orig)[d] >= 0) exact &= product.count((*orig)[d]) && product[(*orig)[d]] == p->shape[d];
      }
      if (!exact) continue;

      // The transform stage: new[ax...] = p[sum of ax_i * stride_i per original axis].
      std::vector<int64_t> stride(layout.shape.size());
      std::map<AxisKey, int64_t> acc;
      for (int i = static_cast<int>(layout.shape.size()) - 1; i >= 0; --i) {
        int64_t& a = acc.try_emplace(layout.axes[i], 1).first->second;
        stride[i] = a;
        a *= layout.shape[i];
      }
      std::vector<IterVar> axis;
      for (size_t i = 0; i < layout.shape.size(); ++i) {
        axis.push_back(IterVar{Var("ax" + std::to_string(i)), 0, layout.shape[i], IterKind::DataPar});
      }
      // The read of p for each new index, and (option 2) each new axis' stride in p's flat data.
      std::vector<int64_t> row(p->shape.size(), 1);
      for (int d = static_cast<int>(p->shape.size()) - 2; d >= 0; --d) row[d] = row[d + 1] * p->shape[d + 1];
      std::vector<Expr> access;
      std::vector<int64_t> source_strides(layout.shape.size(), 0);
      for (size_t d = 0; d < orig->size(); ++d) {
        Expr e = IntImmNode::make(DType::Int32, 0);
        for (size_t i = 0; i < layout.axes.size(); ++i) {
          if (layout.axes[i] != (*orig)[d]) continue;
          e = e + axis[i].var * IntImmNode::make(DType::Int32, stride[i]);
          source_strides[i] += stride[i] * row[d];
        }
        access.push_back(e);
      }
      // Option 2: the placeholder itself in the new layout, read where the stage was.
      Operation transform = pretransformed ? OperationNode::make_placeholder(p->name, layout.shape, p->dtype)
                                           : OperationNode::make_compute("auto_scheduler_layout_transform", "", axis,
                                                                         TensorReadNode::make(p, access));

      // The reader in the workload (the original op behind a cache stage) reads the new layout.
      const OperationNode* reader = nullptr;
      for (const Operation& op : current->ops()) {
        if (op->is_placeholder()) continue;
        for (const Operation& in : input_ops(*op)) {
          if (in.get() == p.get()) reader = op.get();
        }
      }
      MRD_CHECK(reader != nullptr, "rewrite_layout: no reader of ", p->name);
      auto reader_axes = placeholder_axes(*reader, p.get());
      if (!reader_axes || reader_axes->size() != orig->size()) continue;
      std::vector<Expr> reader_vars(reader->axis.size() + reader->reduce_axis.size());
      for (size_t i = 0; i < reader->axis.size(); ++i) reader_vars[i] = reader->axis[i].var;
      for (size_t i = 0; i < reader->reduce_axis.size(); ++i) {
        reader_vars[reader->axis.size() + i] = reader->reduce_axis[i].var;
      }
      std::vector<Expr> new_index(layout.shape.size());
      std::map<AxisKey, int64_t> div;
      for (int i = static_cast<int>(layout.shape.size()) - 1; i >= 0; --i) {
        int64_t& d = div.try_emplace(layout.axes[i], 1).first->second;
        Expr v = reader_vars.at(layout.axes[i]);
        new_index[i] = floormod(floordiv(v, IntImmNode::make(DType::Int32, d)),
                                IntImmNode::make(DType::Int32, layout.shape[i]));
        d *= layout.shape[i];
      }
      class Rewriter : public ExprMutator {
       public:
        Rewriter(const OperationNode* p, Operation t, std::vector<Expr> idx) : p_(p), t_(std::move(t)), idx_(std::move(idx)) {}
        Expr run(const Expr& e) { return visit(e); }

       protected:
        Expr visit_(const TensorReadNode* op, const Expr& self) override {
          return op->op.get() == p_ ? TensorReadNode::make(t_, idx_) : ExprMutator::visit_(op, self);
        }

       private:
        const OperationNode* p_;
        Operation t_;
        std::vector<Expr> idx_;
      };
      Operation new_reader = OperationNode::with_layout_free_placeholders(
          OperationNode::make_compute(reader->name, reader->tag, reader->axis,
                                      Rewriter(p.get(), transform, new_index).run(reader->body)),
          reader->layout_free_placeholders);
      std::unordered_map<const OperationNode*, Operation> replaced = {{reader, new_reader}};
      if (pretransformed) {
        replaced[p.get()] = transform;
        PreTransformedInput in;
        in.tensor_index = current->tensors().size();
        for (size_t i = 0; i < current->tensors().size(); ++i) {
          if (current->tensors()[i].op().get() == p.get()) in.tensor_index = i;
        }
        MRD_CHECK(in.tensor_index < current->tensors().size(), "rewrite_layout: ", p->name,
                  " is not one of the workload's tensors");
        in.shape = layout.shape;
        in.source_strides = std::move(source_strides);
        out.pretransformed.push_back(std::move(in));
      }
      out.tensors = rebuild(*current, replaced);
      rewritten.emplace(out.tensors);
      current = &*rewritten;
      if (pretransformed) continue;

      int stage_id = static_cast<int>(sid) + inserted;
      shift_stage_ids(out.steps, stage_id);
      if (layout.shape.size() >= 5) {
        out.steps.push_back(schedule::FuseStep{stage_id, {0, 1, 2}});
      } else if (layout.shape.size() >= 3) {
        out.steps.push_back(schedule::FuseStep{stage_id, {0, 1}});
      }
      out.steps.push_back(schedule::AnnotationStep{stage_id, 0, static_cast<int>(schedule::IterAnnotation::Parallel)});
      ++inserted;
    }
  }
  if (!rewritten) return std::nullopt;
  return out;
}

}  // namespace mrd::lower
