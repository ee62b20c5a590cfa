#include "common/ir/stmt_functor.h"

namespace mrd::ir {

void StmtVisitor::visit_(const ForNode* op, const Stmt&) {
  visit_expr(op->min);
  visit_expr(op->extent);
  visit(op->body);
}
void StmtVisitor::visit_(const AllocateNode* op, const Stmt&) { visit(op->body); }
void StmtVisitor::visit_(const StoreNode* op, const Stmt&) {
  for (const Expr& i : op->indices) visit_expr(i);
  visit_expr(op->value);
}
void StmtVisitor::visit_(const IfThenElseNode* op, const Stmt&) {
  visit_expr(op->cond);
  visit(op->then_case);
  if (op->else_case.defined()) visit(op->else_case);
}
void StmtVisitor::visit_(const SeqNode* op, const Stmt&) {
  for (const Stmt& s : op->stmts) visit(s);
}
void StmtVisitor::visit_(const LetNode* op, const Stmt&) {
  visit_expr(op->value);
  visit(op->body);
}

Stmt StmtMutator::visit_(const ForNode* op, const Stmt& self) {
  Expr mn = mutate_expr(op->min), ext = mutate_expr(op->extent);
  Stmt body = visit(op->body);
  if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return self;
  return ForNode::make(op->var, mn, ext, op->for_kind, body, op->auto_unroll_max_step);
}
Stmt StmtMutator::visit_(const AllocateNode* op, const Stmt& self) {
  Stmt body = visit(op->body);
  return body.same_as(op->body) ? self : AllocateNode::make(op->buffer, body);
}
Stmt StmtMutator::visit_(const StoreNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<Expr> idx;
  for (const Expr& i : op->indices) {
    idx.push_back(mutate_expr(i));
    if (!idx.back().same_as(i)) changed = true;
  }
  Expr v = mutate_expr(op->value);
  if (!changed && v.same_as(op->value)) return self;
  return StoreNode::make(op->buffer, std::move(idx), v);
}
Stmt StmtMutator::visit_(const IfThenElseNode* op, const Stmt& self) {
  Expr c = mutate_expr(op->cond);
  Stmt t = visit(op->then_case);
  Stmt e = op->else_case.defined() ? visit(op->else_case) : op->else_case;
  if (c.same_as(op->cond) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
  return IfThenElseNode::make(c, t, e);
}
Stmt StmtMutator::visit_(const SeqNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> out;
  for (const Stmt& s : op->stmts) {
    out.push_back(visit(s));
    if (!out.back().same_as(s)) changed = true;
  }
  return changed ? SeqNode::make(std::move(out)) : self;
}
Stmt StmtMutator::visit_(const LetNode* op, const Stmt& self) {
  Expr v = mutate_expr(op->value);
  Stmt body = visit(op->body);
  if (v.same_as(op->value) && body.same_as(op->body)) return self;
  return LetNode::make(op->var, v, body);
}

}  // namespace mrd::ir
