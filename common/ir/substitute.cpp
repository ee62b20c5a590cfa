#include "common/ir/substitute.h"

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"

namespace mrd::ir {

namespace {

class ExprSubstituter : public ExprMutator {
 public:
  explicit ExprSubstituter(const VarMap& vmap) : vmap_(vmap) {}
  Expr run(const Expr& e) { return visit(e); }

 protected:
  using ExprMutator::visit_;
  Expr visit_(const VarNode* op, const Expr& self) override {
    auto it = vmap_.find(op);
    return it == vmap_.end() ? self : it->second;
  }

 private:
  const VarMap& vmap_;
};

class StmtSubstituter : public StmtMutator {
 public:
  explicit StmtSubstituter(const VarMap& vmap) : sub_(vmap) {}
  Stmt run(const Stmt& s) { return visit(s); }

 protected:
  Expr mutate_expr(const Expr& e) override { return sub_.run(e); }

 private:
  ExprSubstituter sub_;
};

}  // namespace

Expr substitute(const Expr& e, const VarMap& vmap) {
  if (vmap.empty() || !e.defined()) return e;
  return ExprSubstituter(vmap).run(e);
}

Stmt substitute(const Stmt& s, const VarMap& vmap) {
  if (vmap.empty()) return s;
  return StmtSubstituter(vmap).run(s);
}

}  // namespace mrd::ir
