#include "common/lower/lift_guards.h"

#include "common/ir/expr_functor.h"
#include "common/ir/expr_queries.h"
#include "common/ir/stmt_functor.h"

namespace mrd::lower {

using namespace ir;

namespace {

/// The guard of `s` that a serial loop over `v` may lift out: `s` is `if (c) S` without an
/// else, c does not use v and reads no buffer.
const IfThenElseNode* liftable_guard(const Stmt& s, const ExprNode* v) {
  const auto* i = s.as<IfThenElseNode>();
  if (!i || i->else_case.defined() || uses(i->cond, v) || has_load(i->cond)) return nullptr;
  return i;
}

/// One chain of directly nested serial loops, lifted from the innermost loop outwards.
Stmt lift_chain(const Stmt& s) {
  const auto* f = s.as<ForNode>();
  if (!f || f->for_kind != ForKind::Serial) return s;
  Stmt b = lift_chain(f->body);
  if (const IfThenElseNode* i = liftable_guard(b, f->var.get())) {
    return IfThenElseNode::make(i->cond, ForNode::make(f->var, f->min, f->extent, f->for_kind, i->then_case,
                                                       f->auto_unroll_max_step));
  }
  if (b.same_as(f->body)) return s;
  return ForNode::make(f->var, f->min, f->extent, f->for_kind, b, f->auto_unroll_max_step);
}

class GuardLifter : public StmtMutator {
 protected:
  Stmt visit_(const ForNode* op, const Stmt& self) override {
    if (op->for_kind != ForKind::Serial) return StmtMutator::visit_(op, self);
    Stmt body = lift_chain(op->body);
    if (const IfThenElseNode* i = liftable_guard(body, op->var.get())) {
      // The loop, now without the guard, is visited again: a guard that was under this one
      // may lift out of it in turn.
      Stmt loop = ForNode::make(op->var, op->min, op->extent, op->for_kind, i->then_case, op->auto_unroll_max_step);
      return IfThenElseNode::make(i->cond, visit(loop));
    }
    Stmt new_body = visit(body);
    if (new_body.same_as(op->body)) return self;
    return ForNode::make(op->var, op->min, op->extent, op->for_kind, new_body, op->auto_unroll_max_step);
  }
};

}  // namespace

Stmt lift_guards(const Stmt& s) { return GuardLifter().visit(s); }

}  // namespace mrd::lower
