#include "common/lower/storage_rewrite.h"

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"
#include "common/lower/hoist_allocations.h"
#include "common/lower/storage_plan.h"

namespace mrd::lower {

using namespace ir;

namespace {

class LoadRemapper : public ExprMutator {
 public:
  explicit LoadRemapper(const StoragePlan& plan) : plan_(plan) {}
  Expr run(const Expr& e) { return visit(e); }

 protected:
  Expr visit_(const BufferLoadNode* op, const Expr& self) override {
    bool changed = false;
    std::vector<Expr> idx = visit_all(op->indices, changed);
    auto it = plan_.find(op->buffer.get());
    if (it == plan_.end()) return changed ? BufferLoadNode::make(op->buffer, std::move(idx)) : self;
    return BufferLoadNode::make(it->second, std::move(idx));
  }

 private:
  const StoragePlan& plan_;
};

class StorageRemapper : public StmtMutator {
 public:
  explicit StorageRemapper(const StoragePlan& plan) : plan_(plan), loads_(plan) {}
  Stmt run(const Stmt& s) { return visit(s); }

 protected:
  Expr mutate_expr(const Expr& e) override { return loads_.run(e); }
  Stmt visit_(const AllocateNode* op, const Stmt& self) override {
    Stmt body = visit(op->body);
    const Buffer& b = storage_of(op->buffer);
    return body.same_as(op->body) && b == op->buffer ? self : AllocateNode::make(b, body);
  }
  Stmt visit_(const StoreNode* op, const Stmt& self) override {
    Stmt s = StmtMutator::visit_(op, self);
    const StoreNode* store = s.as<StoreNode>();
    const Buffer& b = storage_of(store->buffer);
    return b == store->buffer ? s : StoreNode::make(b, store->indices, store->value);
  }

 private:
  const Buffer& storage_of(const Buffer& b) const {
    auto it = plan_.find(b.get());
    return it == plan_.end() ? b : it->second;
  }
  const StoragePlan& plan_;
  LoadRemapper loads_;
};

}  // namespace

Stmt storage_rewrite(const Stmt& body) {
  StoragePlan plan = plan_storage(body);
  Stmt shared = plan.empty() ? body : StorageRemapper(plan).run(body);
  return hoist_allocations(shared);
}

}  // namespace mrd::lower
