#include "common/ir/expr_functor.h"

#include "common/ir/stmt.h"

namespace mrd::ir {

void ExprVisitor::visit_(const BinaryNode* op, const Expr&) {
  visit(op->a);
  visit(op->b);
}
void ExprVisitor::visit_(const NotNode* op, const Expr&) { visit(op->a); }
void ExprVisitor::visit_(const SelectNode* op, const Expr&) {
  visit(op->cond);
  visit(op->t);
  visit(op->f);
}
void ExprVisitor::visit_(const CastNode* op, const Expr&) { visit(op->value); }
void ExprVisitor::visit_(const CallNode* op, const Expr&) {
  for (const Expr& a : op->args) visit(a);
}
void ExprVisitor::visit_(const TensorReadNode* op, const Expr&) {
  for (const Expr& i : op->indices) visit(i);
}
void ExprVisitor::visit_(const ReduceNode* op, const Expr&) {
  visit(op->source);
  if (op->condition.defined()) visit(op->condition);
}
void ExprVisitor::visit_(const BufferLoadNode* op, const Expr&) {
  for (const Expr& i : op->indices) visit(i);
}

void ExprVisitor::visit_(const RampNode* op, const Expr&) {
  visit(op->base);
  visit(op->stride);
}
void ExprVisitor::visit_(const BroadcastNode* op, const Expr&) { visit(op->value); }

std::vector<Expr> ExprMutator::visit_all(const std::vector<Expr>& in, bool& changed) {
  std::vector<Expr> out;
  out.reserve(in.size());
  for (const Expr& e : in) {
    out.push_back(visit(e));
    if (!out.back().same_as(e)) changed = true;
  }
  return out;
}

Expr ExprMutator::visit_(const BinaryNode* op, const Expr& self) {
  Expr a = visit(op->a), b = visit(op->b);
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return BinaryNode::make(op->op, a, b);
}
Expr ExprMutator::visit_(const NotNode* op, const Expr& self) {
  Expr a = visit(op->a);
  return a.same_as(op->a) ? self : NotNode::make(a);
}
Expr ExprMutator::visit_(const SelectNode* op, const Expr& self) {
  Expr c = visit(op->cond), t = visit(op->t), f = visit(op->f);
  if (c.same_as(op->cond) && t.same_as(op->t) && f.same_as(op->f)) return self;
  return SelectNode::make(c, t, f);
}
Expr ExprMutator::visit_(const CastNode* op, const Expr& self) {
  Expr v = visit(op->value);
  return v.same_as(op->value) ? self : CastNode::make(op->dtype, v);
}
Expr ExprMutator::visit_(const CallNode* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> args = visit_all(op->args, changed);
  return changed ? CallNode::make(op->op, std::move(args)) : self;
}
Expr ExprMutator::visit_(const TensorReadNode* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> idx = visit_all(op->indices, changed);
  return changed ? TensorReadNode::make(op->op, std::move(idx)) : self;
}
Expr ExprMutator::visit_(const ReduceNode* op, const Expr& self) {
  Expr s = visit(op->source);
  Expr c = op->condition.defined() ? visit(op->condition) : op->condition;
  if (s.same_as(op->source) && c.same_as(op->condition)) return self;
  return ReduceNode::make(op->op, s, op->axis, c);
}
Expr ExprMutator::visit_(const BufferLoadNode* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> idx = visit_all(op->indices, changed);
  return changed ? BufferLoadNode::make(op->buffer, std::move(idx)) : self;
}

namespace {
class PostOrder : public ExprVisitor {
 public:
  explicit PostOrder(const std::function<void(const Expr&)>& fn) : fn_(fn) {}
  void run(const Expr& e) {
    visit(e);
  }

 protected:
  // Every node: children first (the base class recurses), then the node itself.
#define MRD_POST(name)                                  \
  void visit_(const name##Node* op, const Expr& self) override { \
    ExprVisitor::visit_(op, self);                      \
    fn_(self);                                          \
  }
  MRD_EXPR_NODES(MRD_POST)
#undef MRD_POST

 private:
  const std::function<void(const Expr&)>& fn_;
};
}  // namespace

void post_order_visit(const Expr& e, const std::function<void(const Expr&)>& fn) {
  PostOrder(fn).run(e);
}

}  // namespace mrd::ir

namespace mrd::ir {
Expr ExprMutator::visit_(const RampNode* op, const Expr& self) {
  Expr b = visit(op->base), s = visit(op->stride);
  if (b.same_as(op->base) && s.same_as(op->stride)) return self;
  return RampNode::make(b, s, op->lanes);
}
Expr ExprMutator::visit_(const BroadcastNode* op, const Expr& self) {
  Expr v = visit(op->value);
  return v.same_as(op->value) ? self : BroadcastNode::make(v, op->lanes);
}
}  // namespace mrd::ir
