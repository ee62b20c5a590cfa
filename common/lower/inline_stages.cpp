#include "common/lower/inline_stages.h"

#include "common/ir/expr_functor.h"
#include "common/ir/substitute.h"

namespace mrd::lower {

using namespace ir;

namespace {

class Inliner : public ExprMutator {
 public:
  explicit Inliner(const schedule::Schedule& sch) : sch_(sch) {}
  Expr run(const Expr& e) { return visit(e); }

 protected:
  using ExprMutator::visit_;
  Expr visit_(const TensorReadNode* op, const Expr& self) override {
    Expr e = ExprMutator::visit_(op, self);
    const schedule::Stage* p = sch_.producer_of(op->op.get());
    if (p == nullptr || p->attach != schedule::AttachKind::Inline) return e;
    const TensorReadNode* r = e.as<TensorReadNode>();
    VarMap vmap;
    for (size_t d = 0; d < p->op->axis.size(); ++d) {
      vmap[static_cast<const VarNode*>(p->op->axis[d].var.get())] = r->indices[d];
    }
    return substitute(body_of(p), vmap);
  }

 private:
  Expr body_of(const schedule::Stage* p) {
    auto it = memo_.find(p);
    if (it != memo_.end()) return it->second;
    Expr b = visit(p->op->body);
    memo_[p] = b;
    return b;
  }

  const schedule::Schedule& sch_;
  std::unordered_map<const schedule::Stage*, Expr> memo_;
};

}  // namespace

void inline_stages(LowerContext& ctx) {
  Inliner inliner(ctx.sch);
  for (const schedule::StageRef& s : ctx.sch.stages) {
    if (is_computed(*s)) ctx.bodies[s.get()] = inliner.run(s->op->body);
  }
}

}  // namespace mrd::lower
