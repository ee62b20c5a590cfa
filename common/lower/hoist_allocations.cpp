#include "common/lower/hoist_allocations.h"

#include <vector>

#include "common/ir/stmt_functor.h"

namespace mrd::lower {

using namespace ir;

namespace {

class Hoister : public StmtMutator {
 public:
  /// `s` as the body of an attach scope: its allocations, wherever they were, wrap it.
  Stmt scope(const Stmt& s) {
    std::vector<Buffer> outer;
    outer.swap(pending_);
    Stmt body = visit(s);
    outer.swap(pending_);
    for (size_t i = outer.size(); i-- > 0;) body = AllocateNode::make(outer[i], body);
    return body;
  }

 protected:
  Stmt visit_(const AllocateNode* op, const Stmt&) override {
    bool seen = false;
    for (const Buffer& b : pending_) seen = seen || b == op->buffer;
    if (!seen) pending_.push_back(op->buffer);
    return visit(op->body);
  }
  Stmt visit_(const ForNode* op, const Stmt& self) override {
    if (op->for_kind != ForKind::Parallel) return StmtMutator::visit_(op, self);
    Stmt body = scope(op->body);
    return ForNode::make(op->var, op->min, op->extent, op->for_kind, body, op->auto_unroll_max_step);
  }

 private:
  std::vector<Buffer> pending_;  // the current scope's allocations, outermost first
};

}  // namespace

Stmt hoist_allocations(const Stmt& body) {
  return Hoister().scope(body);
}

}  // namespace mrd::lower
