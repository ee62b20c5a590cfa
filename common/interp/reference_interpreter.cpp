#include "common/interp/reference_interpreter.h"

#include <cmath>
#include <limits>
#include <random>
#include <unordered_map>

#include "common/interp/scalar_ops.h"
#include "common/ir/expr.h"
#include "common/util/error.h"

namespace mrd::interp {

namespace {

using namespace ir;

int64_t checked_elements(const OperationNode& op) {
  int64_t n = 1;
  for (int64_t d : op.shape) {
    MRD_USER_CHECK(d > 0 && n <= kMaxInterpElements / d, "tensor ", op.name,
                   " is too large for the reference interpreter (limit ", kMaxInterpElements,
                   " elements)");
    n *= d;
  }
  return n;
}

class Evaluator {
 public:
  explicit Evaluator(std::unordered_map<const OperationNode*, const HostTensor*> tensors)
      : tensors_(std::move(tensors)) {}

  HostTensor compute(const OperationNode& op) {
    HostTensor out;
    out.dtype = op.dtype;
    out.shape = op.shape;
    int64_t n = checked_elements(op);
    out.data.resize(static_cast<size_t>(n));
    size_t base = env_.size();
    for (const IterVar& iv : op.axis) env_.push_back({iv.var.get(), 0});
    const ReduceNode* reduce = op.body.as<ReduceNode>();
    for (int64_t flat = 0; flat < n; ++flat) {
      // Coordinates of element `flat`, row-major.
      int64_t rest = flat;
      for (size_t d = op.axis.size(); d-- > 0;) {
        env_[base + d].second = op.axis[d].min + rest % op.shape[d];
        rest /= op.shape[d];
      }
      out.data[static_cast<size_t>(flat)] =
          reduce ? eval_reduce(*reduce, op.dtype) : eval_stored(op.body, op.dtype);
    }
    env_.resize(base);
    return out;
  }

 private:
  double eval_stored(const Expr& e, DType t) {
    if (is_float(t)) return store_value(t, eval_f(e));
    return static_cast<double>(wrap_int(t, eval_i(e)));
  }

  double eval_reduce(const ReduceNode& r, DType t) {
    double acc = is_float(t) ? as_float(reduce_identity(r.op, t))
                             : static_cast<double>(*as_const_int(reduce_identity(r.op, t)));
    size_t base = env_.size();
    for (const IterVar& iv : r.axis) env_.push_back({iv.var.get(), iv.min});
    size_t k = r.axis.size();
    while (true) {
      if (!r.condition.defined() || eval_i(r.condition)) {
        if (is_float(t)) {
          double v = eval_f(r.source);
          acc = store_value(t, float_binary(combine_op(r.op), acc, v));
        } else {
          int64_t v = eval_i(r.source);
          acc = static_cast<double>(
              wrap_int(t, int_binary(combine_op(r.op), float_to_int(DType::Int64, acc), v)));
        }
      }
      // Next point of the reduction domain, last axis fastest.
      size_t d = k;
      while (d > 0) {
        --d;
        auto& slot = env_[base + d].second;
        if (++slot < r.axis[d].min + r.axis[d].extent) break;
        slot = r.axis[d].min;
        if (d == 0) {
          env_.resize(base);
          return acc;
        }
      }
    }
  }

  static double as_float(const Expr& e) { return e.as<FloatImmNode>()->value; }

  int64_t var_value(const ExprNode* v) const {
    for (size_t i = env_.size(); i-- > 0;) {
      if (env_[i].first == v) return env_[i].second;
    }
    throw UserError(str_cat("variable ", static_cast<const VarNode*>(v)->name,
                            " is not bound by any axis of the op that uses it"));
  }

  double read(const TensorReadNode& r) {
    auto it = tensors_.find(r.op.get());
    MRD_CHECK(it != tensors_.end(), "tensor ", r.op->name, " read before it was computed");
    const HostTensor& t = *it->second;
    int64_t flat = 0;
    for (size_t d = 0; d < r.indices.size(); ++d) {
      int64_t i = eval_i(r.indices[d]);
      MRD_USER_CHECK(i >= 0 && i < t.shape[d], "read of tensor ", r.op->name,
                     " out of bounds: index ", i, " in dimension ", d, " of extent ", t.shape[d]);
      flat = flat * t.shape[d] + i;
    }
    return t.data[static_cast<size_t>(flat)];
  }

  double eval_f(const Expr& e) {
    switch (e->kind) {
      case ExprKind::FloatImm:
        return e.as<FloatImmNode>()->value;
      case ExprKind::IntImm:
        return static_cast<double>(e.as<IntImmNode>()->value);
      case ExprKind::Var:
        return static_cast<double>(var_value(e.get()));
      case ExprKind::Binary: {
        const auto* b = e.as<BinaryNode>();
        if (!is_float(b->dtype)) return static_cast<double>(eval_i(e));
        double x = eval_f(b->a), y = eval_f(b->b);
        return float_binary(b->op, x, y);
      }
      case ExprKind::Select: {
        const auto* s = e.as<SelectNode>();
        return eval_i(s->cond) ? eval_f(s->t) : eval_f(s->f);
      }
      case ExprKind::Cast: {
        const auto* c = e.as<CastNode>();
        if (!is_float(c->dtype)) return static_cast<double>(eval_i(e));
        double v =
            is_float(c->value->dtype) ? eval_f(c->value) : static_cast<double>(eval_i(c->value));
        return store_value(c->dtype, v);
      }
      case ExprKind::Call:
        return eval_call_f(*e.as<CallNode>());
      case ExprKind::TensorRead:
        return read(*e.as<TensorReadNode>());
      case ExprKind::Not:
      case ExprKind::Reduce:
      case ExprKind::BufferLoad:
      case ExprKind::Ramp:
      case ExprKind::Broadcast:
        break;
    }
    throw UserError(
        str_cat("the reference interpreter cannot evaluate this expression as a "
                "float (node kind ",
                static_cast<int>(e->kind), ")"));
  }

  double eval_call_f(const CallNode& c) {
    if (c.op == CallOp::IfThenElse) {
      return eval_i(c.args[0]) ? eval_f(c.args[1]) : eval_f(c.args[2]);
    }
    if (!is_float(c.dtype)) return static_cast<double>(eval_call_i(c));
    double x = eval_f(c.args[0]);
    double y = call_op_arity(c.op) > 1 ? eval_f(c.args[1]) : 0.0;
    return float_call(c.op, x, y);
  }

  int64_t eval_call_i(const CallNode& c) {
    switch (c.op) {
      case CallOp::IfThenElse:
        return eval_i(c.args[0]) ? eval_i(c.args[1]) : eval_i(c.args[2]);
      case CallOp::Likely:
        return eval_i(c.args[0]) != 0;
      case CallOp::IsNan:
        return std::isnan(eval_f(c.args[0]));
      default:
        break;
    }
    if (is_integer_call(c.op)) {
      int64_t x = eval_i(c.args[0]);
      int64_t y = c.args.size() > 1 ? eval_i(c.args[1]) : 0;
      return int_call(c.op, c.dtype, x, y);
    }
    throw UserError(str_cat("call ", call_op_name(c.op), " has no integer form"));
  }

  int64_t eval_i(const Expr& e) {
    switch (e->kind) {
      case ExprKind::IntImm:
        return e.as<IntImmNode>()->value;
      case ExprKind::Var:
        return var_value(e.get());
      case ExprKind::Binary:
        return eval_binary_i(*e.as<BinaryNode>());
      case ExprKind::Not:
        return eval_i(e.as<NotNode>()->a) == 0;
      case ExprKind::Select: {
        const auto* s = e.as<SelectNode>();
        return eval_i(s->cond) ? eval_i(s->t) : eval_i(s->f);
      }
      case ExprKind::Cast: {
        const auto* c = e.as<CastNode>();
        if (!is_float(c->value->dtype)) return wrap_int(c->dtype, eval_i(c->value));
        double v = eval_f(c->value);
        if (c->dtype == DType::Bool) return v != 0;
        MRD_USER_CHECK(std::isfinite(v) && v > -9.2e18 && v < 9.2e18, "cast of ", v, " to ",
                       dtype_name(c->dtype), " is out of range");
        return wrap_int(c->dtype, static_cast<int64_t>(v));
      }
      case ExprKind::Call:
        return eval_call_i(*e.as<CallNode>());
      case ExprKind::TensorRead:
        return float_to_int(DType::Int64, read(*e.as<TensorReadNode>()));
      case ExprKind::FloatImm:
      case ExprKind::Reduce:
      case ExprKind::BufferLoad:
      case ExprKind::Ramp:
      case ExprKind::Broadcast:
        break;
    }
    throw UserError(
        str_cat("the reference interpreter cannot evaluate this expression as an "
                "integer (node kind ",
                static_cast<int>(e->kind), ")"));
  }

  int64_t eval_binary_i(const BinaryNode& b) {
    if (b.op == BinaryOp::And) return eval_i(b.a) && eval_i(b.b);
    if (b.op == BinaryOp::Or) return eval_i(b.a) || eval_i(b.b);
    if (is_comparison(b.op) && is_float(b.a->dtype)) {
      double x = eval_f(b.a), y = eval_f(b.b);
      return static_cast<int64_t>(float_binary(b.op, x, y));
    }
    int64_t x = eval_i(b.a), y = eval_i(b.b);
    MRD_USER_CHECK(y != 0 || !is_division(b.op), "integer division by zero");
    return wrap_int(b.dtype, int_binary(b.op, x, y));
  }

  std::unordered_map<const OperationNode*, const HostTensor*> tensors_;
  std::vector<std::pair<const ExprNode*, int64_t>> env_;
};

HostTensor empty_like(const OperationNode& op) {
  HostTensor t;
  t.dtype = op.dtype;
  t.shape = op.shape;
  t.data.resize(static_cast<size_t>(checked_elements(op)));
  return t;
}

}  // namespace

std::vector<HostTensor> evaluate(const dag::ComputeDAG& dag,
                                 const std::vector<HostTensor>& inputs) {
  std::unordered_map<const OperationNode*, const HostTensor*> values;
  size_t next_input = 0;
  for (const Tensor& t : dag.tensors()) {
    if (!t->is_placeholder()) continue;
    MRD_USER_CHECK(next_input < inputs.size(),
                   "the reference interpreter needs an input for "
                   "placeholder ",
                   t->name, "; got only ", inputs.size(), " inputs");
    const HostTensor& in = inputs[next_input++];
    MRD_USER_CHECK(in.shape == t->shape, "input for placeholder ", t->name, " has the wrong shape");
    MRD_USER_CHECK(static_cast<int64_t>(in.data.size()) == checked_elements(*t.op()),
                   "input for placeholder ", t->name, " has ", in.data.size(), " values");
    values[t.op().get()] = &in;
  }
  MRD_USER_CHECK(next_input == inputs.size(), "the reference interpreter got ", inputs.size(),
                 " inputs for ", next_input, " placeholders");

  std::unordered_map<const OperationNode*, HostTensor> computed;
  for (const Operation& op : dag.ops()) {
    if (op->is_placeholder()) {
      MRD_USER_CHECK(values.count(op.get()), "placeholder ", op->name,
                     " is read but is not one of the workload's tensors");
      continue;
    }
    HostTensor result = Evaluator(values).compute(*op);
    auto [it, inserted] = computed.emplace(op.get(), std::move(result));
    values[op.get()] = &it->second;
  }

  std::vector<HostTensor> outputs;
  for (const Tensor& t : dag.tensors()) {
    if (!t->is_placeholder()) outputs.push_back(computed.at(t.op().get()));
  }
  return outputs;
}

double InputValues::next() {
  uint64_t r = gen_();
  if (!is_float(dtype_)) return static_cast<double>(1 + r % 9);
  double u = static_cast<double>(r >> 11) * 0x1.0p-53;
  double v = store_value(dtype_, 1.0 + 9.0 * u);
  if (v >= 10.0) v = std::nextafter(10.0f, 0.0f);  // float32 rounding may reach 10
  return v;
}

HostTensor make_input(const OperationNode& placeholder, uint64_t seed) {
  HostTensor t = empty_like(placeholder);
  InputValues values(t.dtype, seed);
  for (double& v : t.data) v = values.next();
  return t;
}

HostTensor make_reference_input(const OperationNode& placeholder) {
  HostTensor t = empty_like(placeholder);
  for (size_t i = 0; i < t.data.size(); ++i) {
    int64_t m = static_cast<int64_t>((static_cast<uint64_t>(i) * 7919) % 1000);
    t.data[i] =
        store_value(t.dtype, is_float(t.dtype) ? m / 1000.0 - 0.5 : static_cast<double>(m - 500));
  }
  return t;
}

}  // namespace mrd::interp
