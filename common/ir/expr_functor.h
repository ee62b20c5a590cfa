// Dispatch over expression kinds, generated from MRD_EXPR_NODES: ExprFunctor<R> is the bare
// switch; ExprVisitor walks every child; ExprMutator rebuilds a node only when a child
// changed, so untouched subtrees stay shared (Halide's IRMutator).
#pragma once

#include <functional>

#include "common/ir/expr.h"

namespace mrd::ir {

template <typename R>
class ExprFunctor {
 public:
  virtual ~ExprFunctor() = default;
  R visit(const Expr& e) {
    switch (e->kind) {
#define MRD_DISPATCH(name) \
  case ExprKind::name:     \
    return visit_(static_cast<const name##Node*>(e.get()), e);
      MRD_EXPR_NODES(MRD_DISPATCH)
#undef MRD_DISPATCH
    }
    return visit_(static_cast<const IntImmNode*>(nullptr), e);  // unreachable
  }

 protected:
#define MRD_DECLARE(name) virtual R visit_(const name##Node* op, const Expr& self) = 0;
  MRD_EXPR_NODES(MRD_DECLARE)
#undef MRD_DECLARE
};

/// Visits every sub-expression (not the bodies of tensors that are read).
class ExprVisitor : public ExprFunctor<void> {
 protected:
  void visit_(const IntImmNode*, const Expr&) override {}
  void visit_(const FloatImmNode*, const Expr&) override {}
  void visit_(const VarNode*, const Expr&) override {}
  void visit_(const BinaryNode* op, const Expr&) override;
  void visit_(const NotNode* op, const Expr&) override;
  void visit_(const SelectNode* op, const Expr&) override;
  void visit_(const CastNode* op, const Expr&) override;
  void visit_(const CallNode* op, const Expr&) override;
  void visit_(const TensorReadNode* op, const Expr&) override;
  void visit_(const ReduceNode* op, const Expr&) override;
  void visit_(const BufferLoadNode* op, const Expr&) override;
  void visit_(const RampNode* op, const Expr&) override;
  void visit_(const BroadcastNode* op, const Expr&) override;
};

/// Rebuilds expressions bottom-up; returns `self` when nothing below changed.
class ExprMutator : public ExprFunctor<Expr> {
 protected:
  Expr visit_(const IntImmNode*, const Expr& self) override { return self; }
  Expr visit_(const FloatImmNode*, const Expr& self) override { return self; }
  Expr visit_(const VarNode*, const Expr& self) override { return self; }
  Expr visit_(const BinaryNode* op, const Expr& self) override;
  Expr visit_(const NotNode* op, const Expr& self) override;
  Expr visit_(const SelectNode* op, const Expr& self) override;
  Expr visit_(const CastNode* op, const Expr& self) override;
  Expr visit_(const CallNode* op, const Expr& self) override;
  Expr visit_(const TensorReadNode* op, const Expr& self) override;
  Expr visit_(const ReduceNode* op, const Expr& self) override;
  Expr visit_(const BufferLoadNode* op, const Expr& self) override;
  Expr visit_(const RampNode* op, const Expr& self) override;
  Expr visit_(const BroadcastNode* op, const Expr& self) override;

  /// Mutates each element; sets `changed` if any element changed.
  std::vector<Expr> visit_all(const std::vector<Expr>& in, bool& changed);
};

/// Calls fn on every sub-expression of e, children before parents (TVM's PostOrderVisit).
void post_order_visit(const Expr& e, const std::function<void(const Expr&)>& fn);

}  // namespace mrd::ir
