#include "common/lower/inplace_check.h"

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"
#include "common/lower/arith.h"

namespace mrd::lower {

using namespace ir;

namespace {

class InplaceVerifier : public StmtVisitor, public ExprVisitor {
 public:
  InplaceVerifier(const BufferNode* dst, const BufferNode* src) : dst_(dst), src_(src) {}
  bool ok() const { return ok_; }
  using StmtVisitor::visit;
  using ExprVisitor::visit;
  void run(const Stmt& s) { visit(s); }

 protected:
  void visit_expr(const Expr& e) override {
    if (ok_) ExprVisitor::visit(e);
  }
  void visit_(const StoreNode* op, const Stmt&) override {
    if (!ok_) return;
    ++index_depth_;
    for (const Expr& i : op->indices) visit_expr(i);
    --index_depth_;
    const StoreNode* outer = store_;
    store_ = op->buffer.get() == dst_ ? op : nullptr;
    visit_expr(op->value);
    store_ = outer;
  }
  void visit_(const BufferLoadNode* op, const Expr&) override {
    if (!ok_) return;
    const BufferNode* b = op->buffer.get();
    if (b == dst_ || index_depth_ != 0) {  // a reduction into dst, or an indirect read
      ok_ = false;
      return;
    }
    if (b == src_) {
      if (!store_ || store_->value->dtype != op->dtype || store_->value->lanes != op->lanes ||
          !structural_equal(store_->indices, op->indices)) {
        ok_ = false;
        return;
      }
    }
    ++index_depth_;
    for (const Expr& i : op->indices) visit_expr(i);
    --index_depth_;
  }
 private:
  const BufferNode* dst_;
  const BufferNode* src_;
  const StoreNode* store_ = nullptr;  // the store to dst whose value is being read
  int index_depth_ = 0;               // > 0 inside an index
  bool ok_ = true;
};

}  // namespace

bool writes_in_place(const Stmt& s, const BufferNode* dst, const BufferNode* src) {
  StmtKind k = s->kind;
  if (k != StmtKind::Store && k != StmtKind::For && k != StmtKind::IfThenElse) return false;
  InplaceVerifier v(dst, src);
  v.run(s);
  return v.ok();
}

}  // namespace mrd::lower
