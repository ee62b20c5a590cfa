#include "common/lower/storage_flatten.h"

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"
#include "common/lower/arith.h"
#include "common/util/error.h"

namespace mrd::lower {

using namespace ir;

namespace {

Expr flat_index(const BufferNode& b, const std::vector<Expr>& idx) {
  MRD_CHECK(idx.size() == b.shape.size(), "buffer ", b.name, " indexed with ", idx.size(),
            " indices");
  Expr out;
  int64_t stride = 1;
  for (size_t d = idx.size(); d-- > 0;) {
    Expr term = stride == 1 ? idx[d] : idx[d] * index_imm(stride, "stride");
    out = out.defined() ? term + out : term;
    // The full product too: every flat index into b must fit int32.
    stride = index_mul(stride, b.shape[d], str_cat("size of buffer ", b.name));
  }
  return out.defined() ? out : Expr(0);
}

class LoadFlattener : public ExprMutator {
 public:
  Expr run(const Expr& e) { return visit(e); }

 protected:
  using ExprMutator::visit_;
  Expr visit_(const BufferLoadNode* op, const Expr& self) override {
    if (op->indices.size() == 1 && op->buffer->shape.size() <= 1)
      return ExprMutator::visit_(op, self);
    bool changed = false;
    std::vector<Expr> idx = visit_all(op->indices, changed);
    return BufferLoadNode::make(op->buffer, {flat_index(*op->buffer, idx)});
  }
};

class Flattener : public StmtMutator {
 protected:
  Expr mutate_expr(const Expr& e) override { return LoadFlattener().run(e); }
  Stmt visit_(const StoreNode* op, const Stmt& self) override {
    if (op->indices.size() == 1 && op->buffer->shape.size() <= 1)
      return StmtMutator::visit_(op, self);
    std::vector<Expr> idx;
    for (const Expr& i : op->indices) idx.push_back(mutate_expr(i));
    return StoreNode::make(op->buffer, {flat_index(*op->buffer, idx)}, mutate_expr(op->value));
  }

 public:
  Stmt run(const Stmt& s) { return visit(s); }
};

}  // namespace

Stmt storage_flatten(const Stmt& body) {
  return Flattener().run(body);
}

}  // namespace mrd::lower
