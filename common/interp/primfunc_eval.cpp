#include "common/interp/primfunc_eval.h"

#include <cmath>
#include <limits>
#include <memory>
#include <unordered_map>

#include "common/util/error.h"

namespace mrd::interp {

using namespace ir;

namespace {

double round_to(DType t, double v) {
  switch (t) {
    case DType::Float32:
      return static_cast<float>(v);
    case DType::Int32:
      return static_cast<double>(static_cast<int32_t>(static_cast<int64_t>(v)));
    case DType::Int64:
      return static_cast<double>(static_cast<int64_t>(v));
    case DType::Bool:
      return v != 0 ? 1.0 : 0.0;
    case DType::Float64:
      return v;
  }
  return v;
}

int64_t floordiv_i(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

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
        int64_t mn = static_cast<int64_t>(eval(op->min));
        int64_t ext = static_cast<int64_t>(eval(op->extent));
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
        const StoreNode* op = s.as<StoreNode>();
        double v = eval(op->value);
        std::vector<double>& m = memory(op->buffer, op->indices.size());
        int64_t idx = index(op->indices, m, op->buffer->name);
        m[idx] = round_to(op->buffer->dtype, v);
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
    int64_t i = idx.empty() ? 0 : static_cast<int64_t>(eval(idx[0]));
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
        return round_to(c->dtype, v);
      }
      case ExprKind::Call:
        return call(e.as<CallNode>());
      case ExprKind::BufferLoad: {
        const BufferLoadNode* l = e.as<BufferLoadNode>();
        std::vector<double>& m = memory(l->buffer, l->indices.size());
        return m[index(l->indices, m, l->buffer->name)];
      }
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
    DType t = b->a->dtype;
    if (is_int(t)) {
      int64_t a = static_cast<int64_t>(x), c = static_cast<int64_t>(y);
      int64_t r;
      switch (b->op) {
        case BinaryOp::Add:
          r = a + c;
          break;
        case BinaryOp::Sub:
          r = a - c;
          break;
        case BinaryOp::Mul:
          r = a * c;
          break;
        case BinaryOp::Div:
          MRD_CHECK(c != 0, "eval_primfunc: division by zero");
          r = a / c;
          break;
        case BinaryOp::FloorDiv:
          MRD_CHECK(c != 0, "eval_primfunc: division by zero");
          r = floordiv_i(a, c);
          break;
        case BinaryOp::FloorMod:
          MRD_CHECK(c != 0, "eval_primfunc: division by zero");
          r = a - floordiv_i(a, c) * c;
          break;
        case BinaryOp::Min:
          r = std::min(a, c);
          break;
        case BinaryOp::Max:
          r = std::max(a, c);
          break;
        case BinaryOp::EQ:
          return a == c;
        case BinaryOp::NE:
          return a != c;
        case BinaryOp::LT:
          return a < c;
        case BinaryOp::LE:
          return a <= c;
        case BinaryOp::GT:
          return a > c;
        case BinaryOp::GE:
          return a >= c;
        default:
          r = 0;
      }
      return round_to(b->dtype, static_cast<double>(r));
    }
    double r;
    switch (b->op) {
      case BinaryOp::Add:
        r = x + y;
        break;
      case BinaryOp::Sub:
        r = x - y;
        break;
      case BinaryOp::Mul:
        r = x * y;
        break;
      case BinaryOp::Div:
        r = x / y;
        break;
      case BinaryOp::Min:
        r = std::min(x, y);
        break;
      case BinaryOp::Max:
        r = std::max(x, y);
        break;
      case BinaryOp::EQ:
        return x == y;
      case BinaryOp::NE:
        return x != y;
      case BinaryOp::LT:
        return x < y;
      case BinaryOp::LE:
        return x <= y;
      case BinaryOp::GT:
        return x > y;
      case BinaryOp::GE:
        return x >= y;
      default:
        throw InternalError("eval_primfunc: integer operator on floats");
    }
    return round_to(b->dtype, r);
  }

  double call(const CallNode* c) {
    if (c->op == CallOp::IfThenElse) {
      return eval(c->args[0]) != 0 ? eval(c->args[1]) : eval(c->args[2]);
    }
    double x = eval(c->args[0]);
    double r;
    switch (c->op) {
      case CallOp::Exp:
        r = std::exp(x);
        break;
      case CallOp::Log:
        r = std::log(x);
        break;
      case CallOp::Sqrt:
        r = std::sqrt(x);
        break;
      case CallOp::Tanh:
        r = std::tanh(x);
        break;
      case CallOp::Sigmoid:
        r = 1.0 / (1.0 + std::exp(-x));
        break;
      case CallOp::Fabs:
        r = std::fabs(x);
        break;
      case CallOp::Pow:
        r = std::pow(x, eval(c->args[1]));
        break;
      case CallOp::Likely:
        return x;
      default:
        r = x;
    }
    return round_to(c->dtype, r);
  }

  std::unordered_map<const BufferNode*, std::vector<double>*> mem_;
  std::unordered_map<const VarNode*, double> vars_;
};

}  // namespace

void eval_primfunc(const PrimFunc& f, std::vector<std::vector<double>*> buffers) {
  Evaluator ev(f, buffers);
  ev.exec(f.body);
}

}  // namespace mrd::interp
