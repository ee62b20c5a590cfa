// Questions about an expression that passes and backends ask alike.
#pragma once

#include "common/ir/expr_functor.h"

namespace mrd::ir {

/// Calls fn on each expression `e` is made of, in the order ExprVisitor visits them: a call's
/// arguments, a read's indices, a reduction's source and then its condition (if any; its axis
/// variables are not operands). Leaves (immediates, variables) have none.
template <typename Fn>
void for_each_operand(const Expr& e, Fn&& fn) {
  switch (e->kind) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::Var:
      return;
    case ExprKind::Binary:
      fn(e.as<BinaryNode>()->a);
      fn(e.as<BinaryNode>()->b);
      return;
    case ExprKind::Not:
      fn(e.as<NotNode>()->a);
      return;
    case ExprKind::Select:
      fn(e.as<SelectNode>()->cond);
      fn(e.as<SelectNode>()->t);
      fn(e.as<SelectNode>()->f);
      return;
    case ExprKind::Cast:
      fn(e.as<CastNode>()->value);
      return;
    case ExprKind::Call:
      for (const Expr& a : e.as<CallNode>()->args) fn(a);
      return;
    case ExprKind::TensorRead:
      for (const Expr& i : e.as<TensorReadNode>()->indices) fn(i);
      return;
    case ExprKind::Reduce:
      fn(e.as<ReduceNode>()->source);
      if (e.as<ReduceNode>()->condition.defined()) fn(e.as<ReduceNode>()->condition);
      return;
    case ExprKind::BufferLoad:
      for (const Expr& i : e.as<BufferLoadNode>()->indices) fn(i);
      return;
    case ExprKind::Ramp:
      fn(e.as<RampNode>()->base);
      fn(e.as<RampNode>()->stride);
      return;
    case ExprKind::Broadcast:
      fn(e.as<BroadcastNode>()->value);
      return;
  }
}

/// True when `e` contains the node `v` (a variable, by identity).
inline bool uses(const Expr& e, const ExprNode* v) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) { found = found || x.get() == v; });
  return found;
}

/// True when `e` reads a buffer.
inline bool has_load(const Expr& e) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) { found = found || x.as<BufferLoadNode>() != nullptr; });
  return found;
}

}  // namespace mrd::ir
