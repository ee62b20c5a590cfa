#include "common/lower/bind_buffers.h"

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"
#include "common/lower/simplify.h"
#include "common/util/error.h"

namespace mrd::lower {

using namespace ir;

namespace {

struct Binding {
  Buffer buffer;
  std::vector<Expr> mins;  // empty: absolute indices
  bool is_param = false;
};

class ReadBinder : public ExprMutator {
 public:
  explicit ReadBinder(const std::function<const Binding&(const OperationNode*)>& find)
      : find_(find) {}
  Expr run(const Expr& e) { return visit(e); }

 protected:
  using ExprMutator::visit_;
  Expr visit_(const TensorReadNode* op, const Expr&) override {
    bool changed = false;
    std::vector<Expr> idx = visit_all(op->indices, changed);
    const Binding& b = find_(op->op.get());
    return BufferLoadNode::make(b.buffer, relative(idx, b));
  }

 public:
  static std::vector<Expr> relative(std::vector<Expr> idx, const Binding& b) {
    if (b.mins.empty()) return idx;
    for (size_t d = 0; d < idx.size(); ++d) {
      const int64_t* c = as_const_int(b.mins[d]);
      if (c && *c == 0) continue;
      idx[d] = simplify_expr(idx[d] - b.mins[d]);
    }
    return idx;
  }

 private:
  const std::function<const Binding&(const OperationNode*)>& find_;
};

class Binder : public StmtMutator {
 public:
  Binder(LowerContext& ctx, std::vector<Buffer>& params) : ctx_(ctx) {
    for (const Tensor& t : ctx.sch.params) {
      Buffer b = BufferNode::make(t->name, t->dtype, t->shape);
      params.push_back(b);
      by_op_[t.op().get()] = Binding{b, {}, true};
    }
    for (const schedule::StageRef& s : ctx.sch.stages) {
      if (!is_computed(*s)) continue;
      const Buffer& prov = ctx.stage_buffers.at(s.get());
      auto p = by_op_.find(s->origin.get());
      Binding b;
      if (p != by_op_.end()) {
        b = p->second;
      } else {
        b.buffer = prov;
        for (size_t d = 0; d < s->op->axis.size(); ++d) {
          b.mins.push_back(ctx.ranges.at(s->root_iters[d].get()).min);
        }
        by_op_[s->origin.get()] = b;
        if (s->op != s->origin) by_op_[s->op.get()] = b;
      }
      by_prov_[prov.get()] = b;
    }
    find_ = [this](const OperationNode* op) -> const Binding& {
      auto it = by_op_.find(op);
      if (it == by_op_.end()) {
        throw UserError(str_cat("Cannot find the Realization point of tensor ", op->name,
                                ": it is read but is not a function argument"));
      }
      return it->second;
    };
  }

  Stmt run(const Stmt& s) { return visit(s); }

 protected:
  Expr mutate_expr(const Expr& e) override { return ReadBinder(find_).run(e); }

  Stmt visit_(const AllocateNode* op, const Stmt& self) override {
    const Binding& b = by_prov_.at(op->buffer.get());
    Stmt body = visit(op->body);
    if (b.is_param) return body;
    return body.same_as(op->body) ? self : AllocateNode::make(op->buffer, body);
  }

  Stmt visit_(const StoreNode* op, const Stmt&) override {
    const Binding& b = by_prov_.at(op->buffer.get());
    std::vector<Expr> idx;
    for (const Expr& i : op->indices) idx.push_back(mutate_expr(i));
    return StoreNode::make(b.buffer, ReadBinder::relative(std::move(idx), b),
                           mutate_expr(op->value));
  }

 private:
  LowerContext& ctx_;
  std::unordered_map<const OperationNode*, Binding> by_op_;
  std::unordered_map<const BufferNode*, Binding> by_prov_;
  std::function<const Binding&(const OperationNode*)> find_;
};

}  // namespace

Stmt bind_buffers(LowerContext& ctx, const Stmt& body, std::vector<Buffer>& params) {
  params.clear();
  return Binder(ctx, params).run(body);
}

}  // namespace mrd::lower
