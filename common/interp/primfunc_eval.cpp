#include "common/interp/primfunc_eval.h"

#include <cmath>
#include <limits>
#include <memory>
#include <unordered_map>

#include "common/interp/scalar_ops.h"
#include "common/util/error.h"

namespace mrd::interp {

using namespace ir;

namespace {

class Evaluator {
 public:
  explicit Evaluator(const PrimFunc& f, const std::vector<std::vector<double>*>& bufs) {
    MRD_CHECK(bufs.size() == f.params.size(), "eval_primfunc: ", f.params.size(), " parameters, ",
              bufs.size(), " buffers");
    for (size_t i = 0; i < bufs.size(); ++i) {
      MRD_CHECK(bufs[i] != nullptr &&
                    static_cast<int64_t>(bufs[i]->size()) == f.params[i]->num_elements(),
                "eval_primfunc: buffer ", i, " (", f.params[i]->name, ") has the wrong size");
      mem_[f.params[i].get()] = bufs[i];
    }
  }

  void exec(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::For: {
        const ForNode* op = s.as<ForNode>();
        int64_t mn = float_to_int(DType::Int64, eval(op->min));
        int64_t ext = float_to_int(DType::Int64, eval(op->extent));
        const VarNode* v = op->var.as<VarNode>();
        for (int64_t i = mn; i < mn + ext; ++i) {
          vars_[v] = static_cast<double>(i);
          exec(op->body);
        }
        vars_.erase(v);
        return;
      }
      case StmtKind::Allocate: {
        const AllocateNode* op = s.as<AllocateNode>();
        auto storage = std::make_unique<std::vector<double>>(
            op->buffer->num_elements(), std::numeric_limits<double>::quiet_NaN());
        std::vector<double>* saved = nullptr;
        auto it = mem_.find(op->buffer.get());
        if (it != mem_.end()) saved = it->second;
        mem_[op->buffer.get()] = storage.get();
        exec(op->body);
        if (saved) {
          mem_[op->buffer.get()] = saved;
        } else {
          mem_.erase(op->buffer.get());
        }
        return;
      }
      case StmtKind::Store: {
        // A vector store evaluates every lane before it writes any.
        const StoreNode* op = s.as<StoreNode>();
        std::vector<double>& m = memory(op->buffer, op->indices.size());
        std::vector<std::pair<int64_t, double>> lanes;
        for (lane_ = 0; lane_ < op->value->lanes; ++lane_) {
          lanes.emplace_back(index(op->indices, m, op->buffer->name), eval(op->value));
        }
        lane_ = 0;
        for (const auto& [idx, v] : lanes) m[idx] = store_value(op->buffer->dtype, v);
        return;
      }
      case StmtKind::IfThenElse: {
        const IfThenElseNode* op = s.as<IfThenElseNode>();
        if (eval(op->cond) != 0) {
          exec(op->then_case);
        } else if (op->else_case.defined()) {
          exec(op->else_case);
        }
        return;
      }
      case StmtKind::Seq:
        for (const Stmt& x : s.as<SeqNode>()->stmts) exec(x);
        return;
      case StmtKind::Let: {
        const LetNode* op = s.as<LetNode>();
        const VarNode* v = op->var.as<VarNode>();
        if (op->value->lanes > 1) {
          std::vector<double> values;
          for (lane_ = 0; lane_ < op->value->lanes; ++lane_) values.push_back(eval(op->value));
          lane_ = 0;
          vector_vars_[v] = std::move(values);
          exec(op->body);
          vector_vars_.erase(v);
          return;
        }
        vars_[v] = eval(op->value);
        exec(op->body);
        vars_.erase(v);
        return;
      }
    }
  }

 private:
  std::vector<double>& memory(const Buffer& b, size_t nidx) {
    MRD_CHECK(nidx <= 1, "eval_primfunc: buffer ", b->name, " accessed with ", nidx,
              " indices (storage not flattened)");
    auto it = mem_.find(b.get());
    MRD_CHECK(it != mem_.end(), "eval_primfunc: buffer ", b->name, " used outside its scope");
    return *it->second;
  }

  int64_t index(const std::vector<Expr>& idx, const std::vector<double>& m,
                const std::string& name) {
    int64_t i = idx.empty() ? 0 : float_to_int(DType::Int64, eval(idx[0]));
    MRD_CHECK(i >= 0 && i < static_cast<int64_t>(m.size()), "eval_primfunc: index ", i,
              " outside buffer ", name, " of ", m.size(), " elements");
    return i;
  }

  double eval(const Expr& e) {
    switch (e->kind) {
      case ExprKind::IntImm:
        return static_cast<double>(e.as<IntImmNode>()->value);
      case ExprKind::FloatImm:
        return e.as<FloatImmNode>()->value;
      case ExprKind::Var: {
        auto vec = vector_vars_.find(e.as<VarNode>());
        if (vec != vector_vars_.end()) return vec->second.at(lane_);
        auto it = vars_.find(e.as<VarNode>());
        MRD_CHECK(it != vars_.end(), "eval_primfunc: unbound variable ", e.as<VarNode>()->name);
        return it->second;
      }
      case ExprKind::Binary:
        return binary(e.as<BinaryNode>());
      case ExprKind::Not:
        return eval(e.as<NotNode>()->a) == 0 ? 1 : 0;
      case ExprKind::Select: {
        const SelectNode* s = e.as<SelectNode>();
        return eval(s->cond) != 0 ? eval(s->t) : eval(s->f);
      }
      case ExprKind::Cast: {
        const CastNode* c = e.as<CastNode>();
        double v = eval(c->value);
        if (is_int(c->dtype) && is_float(c->value->dtype)) v = std::trunc(v);
        return store_value(c->dtype, v);
      }
      case ExprKind::Call:
        return call(e.as<CallNode>());
      case ExprKind::BufferLoad: {
        const BufferLoadNode* l = e.as<BufferLoadNode>();
        std::vector<double>& m = memory(l->buffer, l->indices.size());
        return m[index(l->indices, m, l->buffer->name)];
      }
      case ExprKind::Ramp: {
        // Lane `lane_` of the vector being evaluated; bases and strides are scalars.
        const RampNode* r = e.as<RampNode>();
        return store_value(r->dtype, eval(r->base) + static_cast<double>(lane_) * eval(r->stride));
      }
      case ExprKind::Broadcast:
        return eval(e.as<BroadcastNode>()->value);
      case ExprKind::TensorRead:
      case ExprKind::Reduce:
        break;
    }
    throw InternalError("eval_primfunc: tensor read or reduction left in a lowered function");
  }

  double binary(const BinaryNode* b) {
    if (b->op == BinaryOp::And) return (eval(b->a) != 0 && eval(b->b) != 0) ? 1 : 0;
    if (b->op == BinaryOp::Or) return (eval(b->a) != 0 || eval(b->b) != 0) ? 1 : 0;
    double x = eval(b->a), y = eval(b->b);
    if (is_int(b->a->dtype)) {
      int64_t a = float_to_int(DType::Int64, x), c = float_to_int(DType::Int64, y);
      MRD_CHECK(c != 0 || !is_division(b->op), "eval_primfunc: division by zero");
      return store_value(b->dtype, static_cast<double>(int_binary(b->op, a, c)));
    }
    return store_value(b->dtype, float_binary(b->op, x, y));
  }

  double call(const CallNode* c) {
    if (c->op == CallOp::IfThenElse) {
      return eval(c->args[0]) != 0 ? eval(c->args[1]) : eval(c->args[2]);
    }
    double x = eval(c->args[0]);
    if (c->op == CallOp::Likely) return x;
    double y = call_op_arity(c->op) > 1 ? eval(c->args[1]) : 0.0;
    if (is_integer_call(c->op)) {
      int64_t a = float_to_int(DType::Int64, x), b = float_to_int(DType::Int64, y);
      return static_cast<double>(int_call(c->op, c->dtype, a, b));
    }
    return store_value(c->dtype, float_call(c->op, x, y));
  }

  std::unordered_map<const BufferNode*, std::vector<double>*> mem_;
  std::unordered_map<const VarNode*, double> vars_;
  /// Variables bound to vectors, one value per lane.
  std::unordered_map<const VarNode*, std::vector<double>> vector_vars_;
  /// The lane of the vector statement being evaluated (0 for scalars).
  int lane_ = 0;
};

}  // namespace

void eval_primfunc(const PrimFunc& f, std::vector<std::vector<double>*> buffers) {
  Evaluator ev(f, buffers);
  ev.exec(f.body);
}

}  // namespace mrd::interp
