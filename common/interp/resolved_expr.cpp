#include "common/interp/resolved_expr.h"

#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

#include "common/interp/scalar_ops.h"
#include "common/ir/operation.h"
#include "common/util/error.h"

namespace mrd::interp {

using namespace ir;

// The slots, and every node resolved so far: a subexpression the tree shares resolves to one
// entry, so resolution never grows with the number of paths through the tree; so does one
// that is spelt twice (floordiv(c, 8) in the index of two reads), so lanes compute it once.
struct ResolvedExpr::Resolution {
  const TensorValues& tensors;
  std::unordered_map<const VarNode*, int64_t> slot_of;
  std::unordered_map<const ExprNode*, int32_t> done;
  using Spelling =
      std::tuple<ExprKind, DType, DType, uint8_t, int32_t, int32_t, int32_t, int64_t, uint64_t>;
  std::map<Spelling, int32_t> spelt;
};

namespace {

// c + sum(coefficient[slot] * slot), the coefficients modulo 2^64.
struct Affine {
  int64_t constant = 0;
  std::map<int64_t, int64_t> coefficient;
  bool wraps = false;
};

// The affine form of an integer index of type t, or false when it has another shape.
bool affine_form(const Expr& e, DType t, const std::unordered_map<const VarNode*, int64_t>& slot_of,
                 Affine& out) {
  if (e->dtype != t || e->lanes != 1) return false;
  switch (e->kind) {
    case ExprKind::IntImm:
      out.constant = e.as<IntImmNode>()->value;
      return true;
    case ExprKind::Var: {
      auto it = slot_of.find(e.as<VarNode>());
      if (it == slot_of.end()) return false;  // unbound: the general form reports it
      out.coefficient[it->second] = 1;
      return true;
    }
    case ExprKind::Binary: {
      const auto* b = e.as<BinaryNode>();
      if (b->op != BinaryOp::Add && b->op != BinaryOp::Sub && b->op != BinaryOp::Mul) return false;
      Affine x, y;
      if (!affine_form(b->a, t, slot_of, x) || !affine_form(b->b, t, slot_of, y)) return false;
      out.wraps = true;
      if (b->op == BinaryOp::Mul) {
        if (!x.coefficient.empty() && !y.coefficient.empty()) return false;
        const Affine& scaled = x.coefficient.empty() ? y : x;
        int64_t k = x.coefficient.empty() ? x.constant : y.constant;
        out.constant = wrapping_mul(scaled.constant, k);
        for (const auto& [slot, c] : scaled.coefficient) out.coefficient[slot] = wrapping_mul(c, k);
        return true;
      }
      auto combine = b->op == BinaryOp::Sub ? wrapping_sub : wrapping_add;
      out.constant = combine(x.constant, y.constant);
      out.coefficient = x.coefficient;
      for (const auto& [slot, c] : y.coefficient) {
        out.coefficient[slot] = combine(out.coefficient[slot], c);
      }
      return true;
    }
    default:
      return false;
  }
}

[[noreturn]] void throw_unbound(const ExprNode* v) {
  throw UserError(str_cat("variable ", static_cast<const VarNode*>(v)->name,
                          " is not bound by any axis of the op that uses it"));
}

[[noreturn]] void throw_out_of_bounds(const OperationNode& op, int64_t index, int32_t dim,
                                      int64_t extent) {
  throw UserError(str_cat("read of tensor ", op.name, " out of bounds: index ", index,
                          " in dimension ", dim, " of extent ", extent));
}

[[noreturn]] void throw_unreadable(const OperationNode& op, int32_t rank, size_t dims) {
  MRD_CHECK(rank == static_cast<int32_t>(dims), "read of tensor ", op.name, " with ", rank,
            " indices for ", dims, " dimensions");
  throw InternalError(str_cat("tensor ", op.name, " read before it was computed"));
}

[[noreturn]] void throw_not_evaluable(ExprKind kind, const char* as) {
  throw UserError(str_cat("the reference interpreter cannot evaluate this expression as ", as,
                          " (node kind ", static_cast<int>(kind), ")"));
}

}  // namespace

ResolvedExpr::ResolvedExpr(const Expr& e, const std::vector<const VarNode*>& slots,
                           const TensorValues& tensors) {
  Resolution r{tensors, {}, {}};
  for (size_t k = 0; k < slots.size(); ++k) r.slot_of[slots[k]] = static_cast<int64_t>(k);
  root_ = resolve(e, r);
  if (nodes_[static_cast<size_t>(root_)].lanes) order_lanes(root_);
  lane_values_.resize(lane_order_.size() * kMaxLanes);
  lane_ints_.resize(lane_order_.size() * kMaxLanes);
}

void ResolvedExpr::order_lanes(int32_t id) {
  Node& n = nodes_[static_cast<size_t>(id)];
  if (n.lane_order >= 0) return;
  switch (n.kind) {
    case ExprKind::Binary:
      order_lanes(n.a);
      order_lanes(n.b);
      break;
    case ExprKind::Cast:
      order_lanes(n.a);
      break;
    case ExprKind::Call:
      for (int32_t k = 0; k < n.b; ++k) order_lanes(args_[static_cast<size_t>(n.a + k)]);
      break;
    case ExprKind::TensorRead: {  // read_lanes steps through affine indices itself
      const Read& r = reads_[static_cast<size_t>(n.value)];
      for (int32_t d = 0; d < r.rank; ++d) {
        const Index& x = indices_[static_cast<size_t>(r.first_index + d)];
        if (!x.affine) order_lanes(x.node);
      }
      break;
    }
    default:
      break;
  }
  n.lane_order = static_cast<int32_t>(lane_order_.size());
  lane_order_.push_back(id);
}

ResolvedExpr::Index ResolvedExpr::resolve_index(const Expr& e, Resolution& r) {
  Index x;
  x.node = resolve(e, r);
  Affine a;
  if (is_int(e->dtype) && affine_form(e, e->dtype, r.slot_of, a)) {
    x.affine = true;
    x.wraps = a.wraps;
    x.dtype = e->dtype;
    // Modulo 2^bits of the type the wrapped sum is the same with each coefficient wrapped.
    auto reduced = [&](int64_t v) { return a.wraps ? wrap_int(x.dtype, v) : v; };
    x.constant = reduced(a.constant);
    x.first_term = static_cast<int32_t>(terms_.size());
    for (const auto& [slot, c] : a.coefficient) {
      if (reduced(c) != 0) terms_.push_back({slot, reduced(c)});
    }
    x.terms = static_cast<int32_t>(terms_.size()) - x.first_term;
  }
  return x;
}

int32_t ResolvedExpr::resolve(const Expr& e, Resolution& r) {
  MRD_CHECK(e.defined(), "the reference interpreter got an undefined expression");
  if (auto it = r.done.find(e.get()); it != r.done.end()) return it->second;
  Node n;
  n.kind = e->kind;
  n.dtype = n.operand_dtype = e->dtype;
  n.src = e.get();
  switch (e->kind) {
    case ExprKind::IntImm:
      n.value = e.as<IntImmNode>()->value;
      break;
    case ExprKind::FloatImm:
      n.fvalue = e.as<FloatImmNode>()->value;
      break;
    case ExprKind::Var: {
      auto it = r.slot_of.find(e.as<VarNode>());
      n.value = it == r.slot_of.end() ? -1 : it->second;
      break;
    }
    case ExprKind::Binary: {
      const auto* b = e.as<BinaryNode>();
      n.op = static_cast<uint8_t>(b->op);
      n.operand_dtype = b->a->dtype;
      n.a = resolve(b->a, r);
      n.b = resolve(b->b, r);
      break;
    }
    case ExprKind::Not:
      n.a = resolve(e.as<NotNode>()->a, r);
      break;
    case ExprKind::Select: {
      const auto* sel = e.as<SelectNode>();
      n.a = resolve(sel->cond, r);
      n.b = resolve(sel->t, r);
      n.c = resolve(sel->f, r);
      break;
    }
    case ExprKind::Cast:
      n.operand_dtype = e.as<CastNode>()->value->dtype;
      n.a = resolve(e.as<CastNode>()->value, r);
      break;
    case ExprKind::Call: {
      const auto* c = e.as<CallNode>();
      n.op = static_cast<uint8_t>(c->op);
      std::vector<int32_t> ids;
      for (const Expr& x : c->args) ids.push_back(resolve(x, r));
      n.a = static_cast<int32_t>(args_.size());
      n.b = static_cast<int32_t>(ids.size());
      args_.insert(args_.end(), ids.begin(), ids.end());
      break;
    }
    case ExprKind::TensorRead: {
      const auto* t = e.as<TensorReadNode>();
      std::vector<Index> ids;
      for (const Expr& x : t->indices) ids.push_back(resolve_index(x, r));
      auto it = r.tensors.find(t->op.get());
      const HostTensor* values = it == r.tensors.end() ? nullptr : it->second;
      if (values && values->shape.size() != ids.size()) values = nullptr;  // reported when read
      n.value = static_cast<int64_t>(reads_.size());
      reads_.push_back({t->op.get(), values, static_cast<int32_t>(indices_.size()),
                        static_cast<int32_t>(ids.size())});
      indices_.insert(indices_.end(), ids.begin(), ids.end());
      break;
    }
    // Kinds the interpreter does not evaluate: an error when (if ever) they are evaluated.
    case ExprKind::Reduce:
    case ExprKind::BufferLoad:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
      break;
  }
  // The kinds a node's fields describe whole (not calls' or reads' operand lists, not a
  // variable no slot binds, whose name its message needs).
  bool whole = n.kind == ExprKind::IntImm || n.kind == ExprKind::FloatImm ||
               (n.kind == ExprKind::Var && n.value >= 0) || n.kind == ExprKind::Binary ||
               n.kind == ExprKind::Cast || n.kind == ExprKind::Not || n.kind == ExprKind::Select;
  uint64_t fbits = 0;
  std::memcpy(&fbits, &n.fvalue, sizeof fbits);
  Resolution::Spelling spelling{n.kind, n.dtype, n.operand_dtype, n.op, n.a,
                                n.b,    n.c,     n.value,         fbits};
  if (auto it = r.spelt.find(spelling); whole && it != r.spelt.end()) {
    r.done.emplace(e.get(), it->second);
    return it->second;
  }
  n.lanes = covered(n);
  nodes_.push_back(n);
  int32_t id = static_cast<int32_t>(nodes_.size() - 1);
  r.done.emplace(e.get(), id);
  if (whole) r.spelt.emplace(spelling, id);
  return id;
}

int64_t ResolvedExpr::var(const Node& n, const int64_t* env) const {
  if (n.value < 0) throw_unbound(n.src);
  return env[n.value];
}

int64_t ResolvedExpr::index(const Index& x, const int64_t* env) const {
  if (!x.affine) return i(x.node, env);
  int64_t v = x.constant;
  const Term* t = terms_.data() + x.first_term;
  for (int32_t k = 0; k < x.terms; ++k)
    v = wrapping_add(v, wrapping_mul(t[k].coefficient, env[t[k].slot]));
  return x.wraps ? wrap_int(x.dtype, v) : v;
}

double ResolvedExpr::read(const Node& n, const int64_t* env) const {
  const Read& r = reads_[static_cast<size_t>(n.value)];
  if (r.tensor == nullptr) throw_unreadable(*r.op, r.rank, r.op->shape.size());
  const int64_t* shape = r.tensor->shape.data();
  const Index* idx = indices_.data() + r.first_index;
  int64_t flat = 0;
  for (int32_t d = 0; d < r.rank; ++d) {
    int64_t v = index(idx[d], env);
    if (v < 0 || v >= shape[d]) throw_out_of_bounds(*r.op, v, d, shape[d]);
    flat = flat * shape[d] + v;
  }
  return r.tensor->data[static_cast<size_t>(flat)];
}

bool ResolvedExpr::covered(const Node& n) const {
  auto operand = [&](int32_t id) { return nodes_[static_cast<size_t>(id)].lanes; };
  switch (n.kind) {
    case ExprKind::FloatImm:
    case ExprKind::IntImm:
      return true;
    case ExprKind::Var:
      return n.value >= 0;
    case ExprKind::Binary:
      switch (static_cast<BinaryOp>(n.op)) {
        case BinaryOp::Add:
        case BinaryOp::Sub:
        case BinaryOp::Mul:
        case BinaryOp::Div:
        case BinaryOp::Mod:
        case BinaryOp::Min:
        case BinaryOp::Max:
          break;
        case BinaryOp::FloorDiv:
        case BinaryOp::FloorMod:
          if (is_float(n.dtype)) return false;
          break;
        default:
          return false;
      }
      // Both operands of the node's type (an integer node's of an integer type, not bool).
      return (is_float(n.dtype) || is_int(n.operand_dtype)) && operand(n.a) && operand(n.b);
    case ExprKind::Cast:
      // From a float or an integer to a float, or from an integer to an integer.
      if (is_float(n.dtype)) return n.operand_dtype != DType::Bool && operand(n.a);
      return is_int(n.dtype) && is_int(n.operand_dtype) && operand(n.a);
    case ExprKind::Call: {
      auto op = static_cast<CallOp>(n.op);
      if (op == CallOp::IfThenElse || op == CallOp::Likely || op == CallOp::IsNan ||
          is_float(n.dtype) == is_integer_call(op) || n.dtype == DType::Bool)
        return false;
      for (int32_t k = 0; k < n.b; ++k) {
        const Node& arg = nodes_[static_cast<size_t>(args_[static_cast<size_t>(n.a + k)])];
        if (!arg.lanes || (!is_float(n.dtype) && !is_int(arg.dtype))) return false;
      }
      return n.b == call_op_arity(op);
    }
    case ExprKind::TensorRead: {
      const Read& r = reads_[static_cast<size_t>(n.value)];
      if (r.tensor == nullptr) return false;
      for (int32_t d = 0; d < r.rank; ++d) {
        const Index& x = indices_[static_cast<size_t>(r.first_index + d)];
        bool stepped = x.affine && (x.dtype == DType::Int32 || x.dtype == DType::Int64);
        const Node& general = nodes_[static_cast<size_t>(x.node)];
        if (!stepped && !(general.lanes && is_int(general.dtype))) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

bool ResolvedExpr::read_lanes(const Node& n, const int64_t* env, const LaneBox& box, double* out) {
  // An affine index is v + sum(c[j] * offset[j]) at a point offset[j] along axis j of the box
  // from its first point: c[j] is the index's coefficient of axis j's slot, v its value at the
  // first point. With v in bounds and |c[j]| < 2^31, the sums below cannot overflow; in bounds
  // at the corners of the box, the index is in bounds in between, where (far from its type's
  // limits) wrapping each operation leaves it as it is. Any other index has its value at each
  // point in its node's lanes, checked point by point.
  const Read& r = reads_[static_cast<size_t>(n.value)];
  const int64_t* shape = r.tensor->shape.data();
  const Index* idx = indices_.data() + r.first_index;
  int64_t flat = 0, step[kMaxLaneAxes] = {};
  bool stepped_only = true;
  for (int32_t d = 0; d < r.rank; ++d) {
    for (int32_t j = 0; j < box.rank; ++j) step[j] *= shape[d];
    flat *= shape[d];
    if (!idx[d].affine) {
      stepped_only = false;
      continue;
    }
    int64_t first = index(idx[d], env), lo = first, hi = first;
    if (first < 0 || first >= shape[d]) return false;
    const Term* t = terms_.data() + idx[d].first_term;
    for (int32_t j = 0; j < box.rank; ++j) {
      int64_t c = 0;
      for (int32_t k = 0; k < idx[d].terms; ++k) {
        if (t[k].slot == box.axes[j].slot) c = t[k].coefficient;
      }
      if (c <= -(int64_t{1} << 31) || c >= (int64_t{1} << 31)) return false;
      int64_t span = c * (box.axes[j].length - 1);
      (span < 0 ? lo : hi) += span;
      step[j] += c;
    }
    if (lo < 0 || hi >= shape[d]) return false;
    flat += first;
  }
  const double* data = r.tensor->data.data() + flat;
  int64_t offset[kMaxLanes] = {};
  if (!stepped_only) {
    int64_t stride = 1;
    for (int32_t d = r.rank; d-- > 0; stride *= shape[d]) {
      if (idx[d].affine) continue;
      const int64_t* v = lane_ints(idx[d].node);
      for (int32_t k = 0; k < box.count; ++k) {
        if (v[k] < 0 || v[k] >= shape[d]) return false;
        offset[k] += v[k] * stride;
      }
    }
  } else if (box.rank == 1) {
    for (int32_t k = 0; k < box.count; ++k) out[k] = data[k * step[0]];
    return true;
  }
  for (int32_t j = 0; j < box.rank; ++j) {
    const int32_t* digit = digits_[j];
    for (int32_t k = 0; k < box.count; ++k) offset[k] += digit[k] * step[j];
  }
  for (int32_t k = 0; k < box.count; ++k) out[k] = data[offset[k]];
  return true;
}

void ResolvedExpr::set_digits(const LaneBox& box) {
  // Boxes of one op mostly repeat one shape: the offsets stay from the last box of that shape.
  bool same = box.rank == digits_rank_;
  for (int32_t j = 0; same && j < box.rank; ++j) same = box.axes[j].length == digits_length_[j];
  if (same) return;
  int32_t at[kMaxLaneAxes] = {};
  for (int32_t k = 0; k < box.count; ++k) {
    for (int32_t j = 0; j < box.rank; ++j) digits_[j][k] = at[j];
    for (int32_t j = box.rank; j-- > 0;) {
      if (++at[j] < box.axes[j].length) break;
      at[j] = 0;
    }
  }
  digits_rank_ = box.rank;
  for (int32_t j = 0; j < box.rank; ++j) digits_length_[j] = box.axes[j].length;
}

double* ResolvedExpr::lane_doubles(int32_t id) {
  return lane_values_.data() +
         static_cast<size_t>(nodes_[static_cast<size_t>(id)].lane_order) * kMaxLanes;
}

int64_t* ResolvedExpr::lane_ints(int32_t id) {
  return lane_ints_.data() +
         static_cast<size_t>(nodes_[static_cast<size_t>(id)].lane_order) * kMaxLanes;
}

namespace {

// wrap_int for the index types, inline: int64 as it is, int32 to its low 32 bits.
template <bool kInt64>
int64_t wrap_index(int64_t v) {
  if constexpr (kInt64) {
    return v;
  } else {
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
  }
}

// The binary operators of an index (int32 or int64 operands, already wrapped to the type;
// divisors non-zero) at each point, as wrap_int(t, int_binary(op, x, y)) gives them. An int32
// floor division goes through double: with |x| < 2^53 the quotient rounds to a double no
// integer lies beyond, so its floor is exact.
template <bool kInt64>
bool index_lanes(BinaryOp op, const int64_t* x, const int64_t* y, int32_t count, int64_t* out) {
  switch (op) {
    case BinaryOp::Add:
      for (int32_t k = 0; k < count; ++k) out[k] = wrap_index<kInt64>(wrapping_add(x[k], y[k]));
      return true;
    case BinaryOp::Sub:
      for (int32_t k = 0; k < count; ++k) out[k] = wrap_index<kInt64>(wrapping_sub(x[k], y[k]));
      return true;
    case BinaryOp::Mul:
      for (int32_t k = 0; k < count; ++k) out[k] = wrap_index<kInt64>(wrapping_mul(x[k], y[k]));
      return true;
    case BinaryOp::FloorDiv:
    case BinaryOp::FloorMod:
      if constexpr (kInt64) return false;
      for (int32_t k = 0; k < count; ++k) {
        auto q =
            static_cast<int64_t>(std::floor(static_cast<double>(x[k]) / static_cast<double>(y[k])));
        out[k] = wrap_index<kInt64>(op == BinaryOp::FloorDiv ? q : x[k] - q * y[k]);
      }
      return true;
    default:
      return false;
  }
}

}  // namespace

bool ResolvedExpr::int_lanes(const Node& n, int32_t count, int64_t* out) {
  const int64_t* x = lane_ints(n.a);
  const int64_t* y = lane_ints(n.b);
  auto op = static_cast<BinaryOp>(n.op);
  if (is_division(op)) {
    for (int32_t k = 0; k < count; ++k) {
      if (y[k] == 0) return false;  // one point at a time reports it
    }
  }
  const DType t = n.dtype;
  if (t == DType::Int32 && index_lanes<false>(op, x, y, count, out)) return true;
  if (t == DType::Int64 && index_lanes<true>(op, x, y, count, out)) return true;
  for (int32_t k = 0; k < count; ++k) out[k] = wrap_int(t, int_binary(op, x[k], y[k]));
  return true;
}

bool ResolvedExpr::run_lanes(const int64_t* env, const LaneBox& box) {
  MRD_CHECK(box.count >= 1 && box.count <= kMaxLanes && box.rank <= kMaxLaneAxes,
            "lanes: a box of ", box.count, " points over ", box.rank, " axes");
  if (!nodes_[static_cast<size_t>(root_)].lanes) return false;
  set_digits(box);
  const int32_t count = box.count;
  // Operands come before the nodes that use them: one pass in order evaluates each once.
  for (int32_t id : lane_order_) {
    const Node& n = nodes_[static_cast<size_t>(id)];
    double* v = lane_doubles(id);
    int64_t* z = lane_ints(id);
    const bool integer = is_int(n.dtype);
    switch (n.kind) {
      case ExprKind::FloatImm:
        for (int32_t k = 0; k < count; ++k) v[k] = n.fvalue;
        break;
      case ExprKind::IntImm:
        for (int32_t k = 0; k < count; ++k) z[k] = n.value;
        break;
      case ExprKind::Var: {
        const int32_t* along = nullptr;
        for (int32_t j = 0; j < box.rank; ++j) {
          if (box.axes[j].slot == n.value) along = digits_[j];
        }
        for (int32_t k = 0; k < count; ++k) z[k] = env[n.value] + (along ? along[k] : 0);
        break;
      }
      case ExprKind::Binary: {
        if (integer) {
          if (!int_lanes(n, count, z)) return false;
          break;
        }
        const double* x = lane_doubles(n.a);
        const double* y = lane_doubles(n.b);
        auto op = static_cast<BinaryOp>(n.op);
        if (op == BinaryOp::Add) {
          for (int32_t k = 0; k < count; ++k) v[k] = x[k] + y[k];
        } else if (op == BinaryOp::Mul) {
          for (int32_t k = 0; k < count; ++k) v[k] = x[k] * y[k];
        } else {
          for (int32_t k = 0; k < count; ++k) v[k] = float_binary(op, x[k], y[k]);
        }
        break;
      }
      case ExprKind::Cast:
        if (integer) {
          const int64_t* x = lane_ints(n.a);
          for (int32_t k = 0; k < count; ++k) z[k] = wrap_int(n.dtype, x[k]);
        } else {
          const double* x = lane_doubles(n.a);
          for (int32_t k = 0; k < count; ++k) v[k] = store_value(n.dtype, x[k]);
        }
        break;
      case ExprKind::Call: {
        const int32_t* arg = args_.data() + n.a;
        auto op = static_cast<CallOp>(n.op);
        if (integer) {
          const int64_t* x = lane_ints(arg[0]);
          const int64_t* y = n.b > 1 ? lane_ints(arg[1]) : nullptr;
          for (int32_t k = 0; k < count; ++k) z[k] = int_call(op, n.dtype, x[k], y ? y[k] : 0);
          break;
        }
        const double* x = lane_doubles(arg[0]);
        const double* y = n.b > 1 ? lane_doubles(arg[1]) : nullptr;
        for (int32_t k = 0; k < count; ++k) v[k] = float_call(op, x[k], y ? y[k] : 0.0);
        break;
      }
      case ExprKind::TensorRead:
        if (!read_lanes(n, env, box, v)) return false;
        // As i reads an element of an integer tensor: the value converted, v as f gives it.
        if (integer) {
          for (int32_t k = 0; k < count; ++k) z[k] = float_to_int(DType::Int64, v[k]);
        }
        continue;
      default:
        MRD_CHECK(false, "lanes: node kind ", static_cast<int>(n.kind), " marked as covered");
    }
    // An integer node as f gives it: its value converted to double.
    if (integer || n.kind == ExprKind::IntImm || n.kind == ExprKind::Var) {
      for (int32_t k = 0; k < count; ++k) v[k] = static_cast<double>(z[k]);
    }
  }
  return true;
}

bool ResolvedExpr::eval_f_lanes(const int64_t* env, const LaneBox& box, double* out) {
  if (!run_lanes(env, box)) return false;
  const double* root = lane_doubles(root_);
  for (int32_t k = 0; k < box.count; ++k) out[k] = root[k];
  return true;
}

bool ResolvedExpr::eval_i_lanes(const int64_t* env, const LaneBox& box, int64_t* out) {
  if (!is_int(nodes_[static_cast<size_t>(root_)].dtype) || !run_lanes(env, box)) return false;
  const int64_t* root = lane_ints(root_);
  for (int32_t k = 0; k < box.count; ++k) out[k] = root[k];
  return true;
}

double ResolvedExpr::f(int32_t id, const int64_t* env) const {
  const Node& n = nodes_[static_cast<size_t>(id)];
  switch (n.kind) {
    case ExprKind::FloatImm:
      return n.fvalue;
    case ExprKind::IntImm:
      return static_cast<double>(n.value);
    case ExprKind::Var:
      return static_cast<double>(var(n, env));
    case ExprKind::Binary: {
      if (!is_float(n.dtype)) return static_cast<double>(i(id, env));
      double x = f(n.a, env), y = f(n.b, env);
      return float_binary(static_cast<BinaryOp>(n.op), x, y);
    }
    case ExprKind::Select:
      return i(n.a, env) ? f(n.b, env) : f(n.c, env);
    case ExprKind::Cast: {
      if (!is_float(n.dtype)) return static_cast<double>(i(id, env));
      double v = is_float(n.operand_dtype) ? f(n.a, env) : static_cast<double>(i(n.a, env));
      return store_value(n.dtype, v);
    }
    case ExprKind::Call:
      return call_f(n, env);
    case ExprKind::TensorRead:
      return read(n, env);
    case ExprKind::Not:
    case ExprKind::Reduce:
    case ExprKind::BufferLoad:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
      break;
  }
  throw_not_evaluable(n.kind, "a float");
}

double ResolvedExpr::call_f(const Node& n, const int64_t* env) const {
  const int32_t* arg = args_.data() + n.a;
  auto op = static_cast<CallOp>(n.op);
  if (op == CallOp::IfThenElse) return i(arg[0], env) ? f(arg[1], env) : f(arg[2], env);
  if (!is_float(n.dtype)) return static_cast<double>(call_i(n, env));
  double x = f(arg[0], env);
  double y = call_op_arity(op) > 1 ? f(arg[1], env) : 0.0;
  return float_call(op, x, y);
}

int64_t ResolvedExpr::call_i(const Node& n, const int64_t* env) const {
  const int32_t* arg = args_.data() + n.a;
  auto op = static_cast<CallOp>(n.op);
  switch (op) {
    case CallOp::IfThenElse:
      return i(arg[0], env) ? i(arg[1], env) : i(arg[2], env);
    case CallOp::Likely:
      return i(arg[0], env) != 0;
    case CallOp::IsNan:
      return std::isnan(f(arg[0], env));
    default:
      break;
  }
  if (is_integer_call(op)) {
    int64_t x = i(arg[0], env);
    int64_t y = n.b > 1 ? i(arg[1], env) : 0;
    return int_call(op, n.dtype, x, y);
  }
  throw UserError(str_cat("call ", call_op_name(op), " has no integer form"));
}

int64_t ResolvedExpr::i(int32_t id, const int64_t* env) const {
  const Node& n = nodes_[static_cast<size_t>(id)];
  switch (n.kind) {
    case ExprKind::IntImm:
      return n.value;
    case ExprKind::Var:
      return var(n, env);
    case ExprKind::Binary:
      return binary_i(n, env);
    case ExprKind::Not:
      return i(n.a, env) == 0;
    case ExprKind::Select:
      return i(n.a, env) ? i(n.b, env) : i(n.c, env);
    case ExprKind::Cast: {
      if (!is_float(n.operand_dtype)) return wrap_int(n.dtype, i(n.a, env));
      double v = f(n.a, env);
      if (n.dtype == DType::Bool) return v != 0;
      MRD_USER_CHECK(std::isfinite(v) && v > -9.2e18 && v < 9.2e18, "cast of ", v, " to ",
                     dtype_name(n.dtype), " is out of range");
      return wrap_int(n.dtype, static_cast<int64_t>(v));
    }
    case ExprKind::Call:
      return call_i(n, env);
    case ExprKind::TensorRead:
      return float_to_int(DType::Int64, read(n, env));
    case ExprKind::FloatImm:
    case ExprKind::Reduce:
    case ExprKind::BufferLoad:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
      break;
  }
  throw_not_evaluable(n.kind, "an integer");
}

int64_t ResolvedExpr::binary_i(const Node& n, const int64_t* env) const {
  auto op = static_cast<BinaryOp>(n.op);
  if (op == BinaryOp::And) return i(n.a, env) && i(n.b, env);
  if (op == BinaryOp::Or) return i(n.a, env) || i(n.b, env);
  if (is_comparison(op) && is_float(n.operand_dtype)) {
    double x = f(n.a, env), y = f(n.b, env);
    return static_cast<int64_t>(float_binary(op, x, y));
  }
  int64_t x = i(n.a, env), y = i(n.b, env);
  MRD_USER_CHECK(y != 0 || !is_division(op), "integer division by zero");
  return wrap_int(n.dtype, int_binary(op, x, y));
}

}  // namespace mrd::interp
