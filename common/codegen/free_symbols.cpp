#include "common/codegen/free_symbols.h"

#include <unordered_set>

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"

namespace mrd::codegen {

using namespace ir;

namespace {

class FreeSymbolFinder : public StmtVisitor {
 public:
  /// The free symbols of `s`, the body of a loop over `loop_var`.
  FreeSymbols run(const Stmt& s, const VarNode* loop_var) {
    bound_.insert(loop_var);
    visit(s);
    return out_;
  }

 protected:
  void visit_expr(const Expr& e) override {
    post_order_visit(e, [&](const Expr& x) {
      if (const VarNode* v = x.as<VarNode>()) use_var(v);
      if (const BufferLoadNode* l = x.as<BufferLoadNode>()) use_buffer(l->buffer.get());
    });
  }
  void visit_(const ForNode* op, const Stmt& self) override {
    bound_.insert(op->var.as<VarNode>());
    StmtVisitor::visit_(op, self);
  }
  void visit_(const LetNode* op, const Stmt& self) override {
    visit_expr(op->value);
    bound_.insert(op->var.as<VarNode>());
    visit(op->body);
  }
  void visit_(const AllocateNode* op, const Stmt& self) override {
    local_.insert(op->buffer.get());
    StmtVisitor::visit_(op, self);
  }
  void visit_(const StoreNode* op, const Stmt& self) override {
    use_buffer(op->buffer.get());
    StmtVisitor::visit_(op, self);
  }

 private:
  void use_var(const VarNode* v) {
    if (!bound_.count(v) && seen_vars_.insert(v).second) out_.vars.push_back(v);
  }
  void use_buffer(const BufferNode* b) {
    if (!local_.count(b) && seen_buffers_.insert(b).second) out_.buffers.push_back(b);
  }
  std::unordered_set<const VarNode*> bound_, seen_vars_;
  std::unordered_set<const BufferNode*> local_, seen_buffers_;
  FreeSymbols out_;
};

}  // namespace

FreeSymbols free_symbols(const Stmt& body, const VarNode* loop_var) { return FreeSymbolFinder().run(body, loop_var); }

}  // namespace mrd::codegen
