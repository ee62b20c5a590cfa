// Dispatch over statement kinds, generated from MRD_STMT_NODES: StmtVisitor walks every
// statement and hands each expression to visit_expr(); StmtMutator rebuilds a statement only
// when something below changed, with mutate_expr() as the hook for expressions.
#pragma once

#include "common/ir/stmt.h"

namespace mrd::ir {

template <typename R>
class StmtFunctor {
 public:
  virtual ~StmtFunctor() = default;
  R visit(const Stmt& s) {
    switch (s->kind) {
#define MRD_DISPATCH(name) \
  case StmtKind::name:     \
    return visit_(static_cast<const name##Node*>(s.get()), s);
      MRD_STMT_NODES(MRD_DISPATCH)
#undef MRD_DISPATCH
    }
    return visit_(static_cast<const ForNode*>(nullptr), s);  // unreachable
  }

 protected:
#define MRD_DECLARE(name) virtual R visit_(const name##Node* op, const Stmt& self) = 0;
  MRD_STMT_NODES(MRD_DECLARE)
#undef MRD_DECLARE
};

class StmtVisitor : public StmtFunctor<void> {
 protected:
  /// Called on each expression directly held by a statement; does nothing by default.
  virtual void visit_expr(const Expr&) {}
  void visit_(const ForNode* op, const Stmt&) override;
  void visit_(const AllocateNode* op, const Stmt&) override;
  void visit_(const StoreNode* op, const Stmt&) override;
  void visit_(const IfThenElseNode* op, const Stmt&) override;
  void visit_(const SeqNode* op, const Stmt&) override;
  void visit_(const LetNode* op, const Stmt&) override;
};

class StmtMutator : public StmtFunctor<Stmt> {
 protected:
  /// Mutates each expression directly held by a statement; identity by default.
  virtual Expr mutate_expr(const Expr& e) { return e; }
  Stmt visit_(const ForNode* op, const Stmt& self) override;
  Stmt visit_(const AllocateNode* op, const Stmt& self) override;
  Stmt visit_(const StoreNode* op, const Stmt& self) override;
  Stmt visit_(const IfThenElseNode* op, const Stmt& self) override;
  Stmt visit_(const SeqNode* op, const Stmt& self) override;
  Stmt visit_(const LetNode* op, const Stmt& self) override;
};

}  // namespace mrd::ir
