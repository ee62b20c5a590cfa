#include "common/ir/expr.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/ir/operation.h"
#include "common/ir/scalar_semantics.h"
#include "common/ir/stmt.h"
#include "common/util/error.h"

namespace mrd::ir {

Expr::Expr(int value) : Expr(IntImmNode::make(DType::Int32, value)) {}
Expr::Expr(int64_t value) : Expr(IntImmNode::make(DType::Int64, value)) {}
Expr::Expr(float value) : Expr(FloatImmNode::make(DType::Float32, value)) {}
Expr::Expr(double value) : Expr(FloatImmNode::make(DType::Float32, value)) {}

Var::Var(std::string name, DType dtype)
    : Expr(std::make_shared<const VarNode>(dtype, std::move(name))) {}

Var::Var(std::string name, DType dtype, int lanes) {
  auto n = std::make_shared<VarNode>(dtype, std::move(name));
  n->lanes = lanes;
  *this = Var(std::shared_ptr<const ExprNode>(std::move(n)));
}

Var Var::from(const Expr& e) {
  MRD_CHECK(e.as<VarNode>() != nullptr, "expression is not a variable");
  return Var(e.node());
}

const std::string& Var::name() const { return static_cast<const VarNode*>(get())->name; }

Expr IntImmNode::make(DType t, int64_t value) {
  MRD_CHECK(is_int(t) || t == DType::Bool, "integer immediate of type ", dtype_name(t));
  if (t != DType::Bool) {
    MRD_USER_CHECK(fits(t, value), "integer constant ", value, " does not fit ", dtype_name(t));
  }
  if (t == DType::Bool) value = value != 0;
  return Expr(std::make_shared<const IntImmNode>(t, value));
}

Expr FloatImmNode::make(DType t, double value) {
  MRD_CHECK(is_float(t), "float immediate of type ", dtype_name(t));
  if (t == DType::Float32) value = to_float32(value);
  return Expr(std::make_shared<const FloatImmNode>(t, value));
}

std::string_view binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::FloorDiv: return "floordiv";
    case BinaryOp::FloorMod: return "floormod";
    case BinaryOp::Min: return "min";
    case BinaryOp::Max: return "max";
    case BinaryOp::EQ: return "==";
    case BinaryOp::NE: return "!=";
    case BinaryOp::LT: return "<";
    case BinaryOp::LE: return "<=";
    case BinaryOp::GT: return ">";
    case BinaryOp::GE: return ">=";
    case BinaryOp::And: return "&&";
    case BinaryOp::Or: return "||";
    case BinaryOp::Mod: return "%";
  }
  return "?";
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::EQ || op == BinaryOp::NE || op == BinaryOp::LT || op == BinaryOp::LE ||
         op == BinaryOp::GT || op == BinaryOp::GE;
}

namespace {

bool is_imm(const Expr& e) {
  return e->kind == ExprKind::IntImm || e->kind == ExprKind::FloatImm;
}

/// An immediate re-typed as t (TVM converts Python constants to the other operand's type).
Expr retype_imm(const Expr& e, DType t) {
  if (const IntImmNode* i = e.as<IntImmNode>()) {
    if (!is_float(t)) return IntImmNode::make(t, i->value);
  }
  double v = e.as<IntImmNode>() ? static_cast<double>(e.as<IntImmNode>()->value)
                                : e.as<FloatImmNode>()->value;
  if (is_float(t)) return FloatImmNode::make(t, v);
  // [-2^63, 2^63): the doubles that convert to int64 without overflow.
  MRD_USER_CHECK(std::floor(v) == v && v >= -9223372036854775808.0 && v < 9223372036854775808.0,
                 "float constant ", v, " used as ", dtype_name(t));
  return IntImmNode::make(t, static_cast<int64_t>(v));
}

/// The type two operands of different types meet in, as TVM's BinaryOpMatchTypes: the float
/// one (the wider of two floats); between integers of one signedness the wider; between a
/// signed and an unsigned integer the signed type of the larger width (bool is a 1-bit
/// unsigned integer).
DType common_type(DType a, DType b) {
  if (is_float(a) || is_float(b)) {
    if (is_float(a) && is_float(b)) return dtype_bits(a) >= dtype_bits(b) ? a : b;
    return is_float(a) ? a : b;
  }
  bool ua = a == DType::Bool || is_unsigned(a), ub = b == DType::Bool || is_unsigned(b);
  if (ua == ub) return dtype_bits(a) >= dtype_bits(b) ? a : b;
  return int_type(std::max({dtype_bits(a), dtype_bits(b), 8}), true);
}

/// Brings a and b to one type, as TVM's BinaryOpMatchTypes.
void match_types(Expr& a, Expr& b) {
  if (a->dtype == b->dtype) return;
  if (is_imm(b) && !is_imm(a)) {
    b = retype_imm(b, a->dtype);
    return;
  }
  if (is_imm(a) && !is_imm(b)) {
    a = retype_imm(a, b->dtype);
    return;
  }
  DType t = common_type(a->dtype, b->dtype);
  if (a->dtype != t) a = is_imm(a) ? retype_imm(a, t) : CastNode::make(t, a);
  if (b->dtype != t) b = is_imm(b) ? retype_imm(b, t) : CastNode::make(t, b);
}

/// Brings a and b to one lane count: a scalar is broadcast to the other's lanes.
int match_lanes(Expr& a, Expr& b) {
  if (a->lanes == b->lanes) return a->lanes;
  MRD_CHECK(a->lanes == 1 || b->lanes == 1, "operands with ", a->lanes, " and ", b->lanes, " lanes");
  int lanes = std::max(a->lanes, b->lanes);
  a = broadcast_to(a, lanes);
  b = broadcast_to(b, lanes);
  return lanes;
}

template <typename Node, typename... Args>
Expr make_with_lanes(int lanes, Args&&... args) {
  auto n = std::make_shared<Node>(std::forward<Args>(args)...);
  n->lanes = lanes;
  return Expr(std::shared_ptr<const ExprNode>(std::move(n)));
}

}  // namespace

Expr broadcast_to(const Expr& e, int lanes) {
  if (e->lanes == lanes) return e;
  return BroadcastNode::make(e, lanes);
}

Expr RampNode::make(Expr base, Expr stride, int lanes) {
  MRD_CHECK(base.defined() && stride.defined() && is_int(base->dtype) && base->dtype == stride->dtype,
            "ramp of non-integer or mismatched base and stride");
  MRD_CHECK(base->lanes == 1 && stride->lanes == 1 && lanes > 1 && lanes <= kMaxLanes,
            "ramp of ", lanes, " lanes");
  DType t = base->dtype;
  return make_with_lanes<RampNode>(lanes, t, std::move(base), std::move(stride));
}

Expr BroadcastNode::make(Expr value, int lanes) {
  MRD_CHECK(value.defined() && value->lanes == 1 && lanes > 1 && lanes <= kMaxLanes,
            "broadcast to ", lanes, " lanes");
  DType t = value->dtype;
  return make_with_lanes<BroadcastNode>(lanes, t, std::move(value));
}

Expr BinaryNode::make(BinaryOp op, Expr a, Expr b) {
  MRD_CHECK(a.defined() && b.defined(), "binary operand undefined");
  DType t;
  if (op == BinaryOp::And || op == BinaryOp::Or) {
    MRD_USER_CHECK(a->dtype == DType::Bool && b->dtype == DType::Bool, binary_op_name(op),
                   " needs bool operands");
    t = DType::Bool;
  } else {
    MRD_USER_CHECK(a->dtype != DType::Bool && b->dtype != DType::Bool,
                   "arithmetic on a bool value (", binary_op_name(op), ")");
    match_types(a, b);
    if ((op == BinaryOp::FloorDiv || op == BinaryOp::FloorMod)) {
      MRD_USER_CHECK(is_int(a->dtype), binary_op_name(op), " needs integer operands");
    }
    t = is_comparison(op) ? DType::Bool : a->dtype;
  }
  int lanes = match_lanes(a, b);
  return make_with_lanes<BinaryNode>(lanes, t, op, std::move(a), std::move(b));
}

Expr NotNode::make(Expr a) {
  MRD_USER_CHECK(a->dtype == DType::Bool, "! needs a bool operand");
  int lanes = a->lanes;
  return make_with_lanes<NotNode>(lanes, std::move(a));
}

Expr SelectNode::make(Expr cond, Expr t, Expr f) {
  MRD_USER_CHECK(cond->dtype == DType::Bool, "select condition must be bool");
  match_types(t, f);
  DType d = t->dtype;
  int lanes = match_lanes(t, f);
  if (cond->lanes != lanes) lanes = match_lanes(cond, t), match_lanes(t, f);  // then all agree
  return make_with_lanes<SelectNode>(lanes, d, std::move(cond), std::move(t), std::move(f));
}

Expr CastNode::make(DType t, Expr value) {
  if (value->dtype == t) return value;
  int lanes = value->lanes;
  return make_with_lanes<CastNode>(lanes, t, std::move(value));
}

std::string_view call_op_name(CallOp op) {
  switch (op) {
    case CallOp::Exp: return "exp";
    case CallOp::Log: return "log";
    case CallOp::Sqrt: return "sqrt";
    case CallOp::Tanh: return "tanh";
    case CallOp::Sigmoid: return "sigmoid";
    case CallOp::Fabs: return "fabs";
    case CallOp::Pow: return "pow";
    case CallOp::IfThenElse: return "if_then_else";
    case CallOp::Likely: return "likely";
    case CallOp::Erf: return "erf";
    case CallOp::Floor: return "floor";
    case CallOp::Ceil: return "ceil";
    case CallOp::Trunc: return "trunc";
    case CallOp::Round: return "round";
    case CallOp::Rsqrt: return "rsqrt";
    case CallOp::Sin: return "sin";
    case CallOp::Cos: return "cos";
    case CallOp::Exp2: return "exp2";
    case CallOp::Log2: return "log2";
    case CallOp::Log10: return "log10";
    case CallOp::IsNan: return "isnan";
    case CallOp::BitwiseAnd: return "bitwise_and";
    case CallOp::BitwiseOr: return "bitwise_or";
    case CallOp::BitwiseXor: return "bitwise_xor";
    case CallOp::BitwiseNot: return "bitwise_not";
    case CallOp::ShiftLeft: return "shift_left";
    case CallOp::ShiftRight: return "shift_right";
  }
  return "?";
}

bool is_integer_call(CallOp op) {
  switch (op) {
    case CallOp::BitwiseAnd:
    case CallOp::BitwiseOr:
    case CallOp::BitwiseXor:
    case CallOp::BitwiseNot:
    case CallOp::ShiftLeft:
    case CallOp::ShiftRight:
      return true;
    default:
      return false;
  }
}

int call_op_arity(CallOp op) {
  switch (op) {
    case CallOp::Pow:
    case CallOp::BitwiseAnd:
    case CallOp::BitwiseOr:
    case CallOp::BitwiseXor:
    case CallOp::ShiftLeft:
    case CallOp::ShiftRight: return 2;
    case CallOp::IfThenElse: return 3;
    default: return 1;
  }
}

Expr CallNode::make(CallOp op, std::vector<Expr> args) {
  MRD_USER_CHECK(static_cast<int>(args.size()) == call_op_arity(op), call_op_name(op), " takes ",
                 call_op_arity(op), " arguments, got ", args.size());
  DType t;
  switch (op) {
    case CallOp::IfThenElse:
      MRD_USER_CHECK(args[0]->dtype == DType::Bool, "if_then_else condition must be bool");
      match_types(args[1], args[2]);
      t = args[1]->dtype;
      break;
    case CallOp::Likely:
      MRD_USER_CHECK(args[0]->dtype == DType::Bool, "likely needs a bool");
      t = DType::Bool;
      break;
    case CallOp::IsNan:
      MRD_USER_CHECK(is_float(args[0]->dtype), "isnan needs a float argument");
      t = DType::Bool;
      break;
    case CallOp::BitwiseAnd:
    case CallOp::BitwiseOr:
    case CallOp::BitwiseXor:
    case CallOp::BitwiseNot:
    case CallOp::ShiftLeft:
    case CallOp::ShiftRight: {
      // As TVM's bitwise_and & co.: operands of one type (BinaryOpMatchTypes), integers; the
      // bitwise ones also take bools (TVM's uint1).
      if (args.size() == 2) match_types(args[0], args[1]);
      bool shift = op == CallOp::ShiftLeft || op == CallOp::ShiftRight;
      MRD_USER_CHECK(is_int(args[0]->dtype) || (!shift && args[0]->dtype == DType::Bool),
                     call_op_name(op), " needs integer arguments, got ", dtype_name(args[0]->dtype));
      t = args[0]->dtype;
      break;
    }
    case CallOp::Pow:
      match_types(args[0], args[1]);
      [[fallthrough]];
    default:
      MRD_USER_CHECK(is_float(args[0]->dtype), call_op_name(op), " needs a float argument");
      t = args[0]->dtype;
  }
  int lanes = 1;
  for (const Expr& a : args) lanes = std::max(lanes, a->lanes);
  for (Expr& a : args) {
    MRD_CHECK(a->lanes == 1 || a->lanes == lanes, "call arguments with different lane counts");
    if (op != CallOp::IfThenElse || &a != &args[0]) a = broadcast_to(a, lanes);
  }
  return make_with_lanes<CallNode>(lanes, t, op, std::move(args));
}

Expr TensorReadNode::make(Operation op, std::vector<Expr> indices) {
  MRD_CHECK(op != nullptr, "read of an undefined tensor");
  MRD_USER_CHECK(indices.size() == op->shape.size(), "tensor ", op->name, " has ",
                 op->shape.size(), " dimensions, read with ", indices.size(), " indices");
  for (const Expr& i : indices) {
    MRD_USER_CHECK(i.defined() && is_index(i->dtype), "index into ", op->name,
                   " must be an int32 or int64");
  }
  DType t = op->dtype;
  return Expr(std::make_shared<const TensorReadNode>(t, std::move(op), std::move(indices)));
}

std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    case ReduceOp::Prod: return "prod";
  }
  return "?";
}

Expr reduce_identity(ReduceOp op, DType t) {
  if (op == ReduceOp::Sum || op == ReduceOp::Prod) return const_of(t, op == ReduceOp::Prod ? 1 : 0);
  bool lowest = op == ReduceOp::Max;
  switch (t) {
    case DType::Float32:
      return FloatImmNode::make(t, lowest ? std::numeric_limits<float>::lowest()
                                          : std::numeric_limits<float>::max());
    case DType::Float64:
      return FloatImmNode::make(t, lowest ? std::numeric_limits<double>::lowest()
                                          : std::numeric_limits<double>::max());
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16:
    case DType::UInt16:
    case DType::Int32:
    case DType::UInt32:
    case DType::Int64:
      return IntImmNode::make(t, lowest ? int_min(t) : int_max(t));
    case DType::Bool: break;
  }
  throw UserError("reduction over bool values");
}

Expr reduce_combine(ReduceOp op, Expr acc, Expr value) {
  return BinaryNode::make(combine_op(op), std::move(acc), std::move(value));
}

Expr ReduceNode::make(ReduceOp op, Expr source, std::vector<IterVar> axis, Expr condition) {
  MRD_USER_CHECK(source.defined() && source->dtype != DType::Bool, "reduction of a bool value");
  MRD_USER_CHECK(!axis.empty(), "reduction with no axis");
  for (const IterVar& iv : axis) {
    MRD_USER_CHECK(iv.kind == IterKind::Reduce, "axis ", iv.var.name(),
                   " of a reduction is not a reduce_axis");
  }
  MRD_USER_CHECK(!condition.defined() || condition->dtype == DType::Bool,
                 "reduction condition must be bool");
  DType t = source->dtype;
  return Expr(std::make_shared<const ReduceNode>(t, op, std::move(source), std::move(axis),
                                                 std::move(condition)));
}

Expr BufferLoadNode::make(Buffer buffer, std::vector<Expr> indices) {
  MRD_CHECK(buffer != nullptr, "load from an undefined buffer");
  DType t = buffer->dtype;
  int lanes = 1;
  for (const Expr& i : indices) {
    MRD_CHECK(i->lanes == 1 || indices.size() == 1, "a vector index into a multi-dimensional buffer");
    lanes = i->lanes;
  }
  return make_with_lanes<BufferLoadNode>(lanes, t, std::move(buffer), std::move(indices));
}

Expr operator+(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Add, a, b); }
Expr operator-(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Sub, a, b); }
Expr operator*(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Mul, a, b); }
Expr operator/(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Div, a, b); }
Expr operator-(Expr a) { return BinaryNode::make(BinaryOp::Sub, const_of(a->dtype, 0), a); }
Expr operator<(Expr a, Expr b) { return BinaryNode::make(BinaryOp::LT, a, b); }
Expr operator<=(Expr a, Expr b) { return BinaryNode::make(BinaryOp::LE, a, b); }
Expr operator>(Expr a, Expr b) { return BinaryNode::make(BinaryOp::GT, a, b); }
Expr operator>=(Expr a, Expr b) { return BinaryNode::make(BinaryOp::GE, a, b); }
Expr operator==(Expr a, Expr b) { return BinaryNode::make(BinaryOp::EQ, a, b); }
Expr operator!=(Expr a, Expr b) { return BinaryNode::make(BinaryOp::NE, a, b); }
Expr operator&&(Expr a, Expr b) { return BinaryNode::make(BinaryOp::And, a, b); }
Expr operator||(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Or, a, b); }
Expr operator!(Expr a) { return NotNode::make(a); }
Expr floordiv(Expr a, Expr b) { return BinaryNode::make(BinaryOp::FloorDiv, a, b); }
Expr floormod(Expr a, Expr b) { return BinaryNode::make(BinaryOp::FloorMod, a, b); }
Expr truncmod(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Mod, a, b); }
Expr min(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Min, a, b); }
Expr max(Expr a, Expr b) { return BinaryNode::make(BinaryOp::Max, a, b); }
Expr select(Expr cond, Expr t, Expr f) { return SelectNode::make(cond, t, f); }
Expr if_then_else(Expr cond, Expr t, Expr f) {
  return CallNode::make(CallOp::IfThenElse, {cond, t, f});
}
Expr cast(DType t, Expr value) { return CastNode::make(t, value); }
Expr exp(Expr x) { return CallNode::make(CallOp::Exp, {x}); }
Expr log(Expr x) { return CallNode::make(CallOp::Log, {x}); }
Expr sqrt(Expr x) { return CallNode::make(CallOp::Sqrt, {x}); }
Expr tanh(Expr x) { return CallNode::make(CallOp::Tanh, {x}); }
Expr sigmoid(Expr x) { return CallNode::make(CallOp::Sigmoid, {x}); }
Expr fabs(Expr x) { return CallNode::make(CallOp::Fabs, {x}); }
Expr pow(Expr x, Expr y) { return CallNode::make(CallOp::Pow, {x, y}); }
Expr erf(Expr x) { return CallNode::make(CallOp::Erf, {x}); }
Expr floor(Expr x) { return CallNode::make(CallOp::Floor, {x}); }
Expr ceil(Expr x) { return CallNode::make(CallOp::Ceil, {x}); }
Expr trunc(Expr x) { return CallNode::make(CallOp::Trunc, {x}); }
Expr round(Expr x) { return CallNode::make(CallOp::Round, {x}); }
Expr rsqrt(Expr x) { return CallNode::make(CallOp::Rsqrt, {x}); }
Expr sin(Expr x) { return CallNode::make(CallOp::Sin, {x}); }
Expr cos(Expr x) { return CallNode::make(CallOp::Cos, {x}); }
Expr exp2(Expr x) { return CallNode::make(CallOp::Exp2, {x}); }
Expr log2(Expr x) { return CallNode::make(CallOp::Log2, {x}); }
Expr log10(Expr x) { return CallNode::make(CallOp::Log10, {x}); }
Expr isnan(Expr x) { return CallNode::make(CallOp::IsNan, {x}); }
Expr bitwise_and(Expr a, Expr b) { return CallNode::make(CallOp::BitwiseAnd, {a, b}); }
Expr bitwise_or(Expr a, Expr b) { return CallNode::make(CallOp::BitwiseOr, {a, b}); }
Expr bitwise_xor(Expr a, Expr b) { return CallNode::make(CallOp::BitwiseXor, {a, b}); }
Expr bitwise_not(Expr a) { return CallNode::make(CallOp::BitwiseNot, {a}); }
Expr shift_left(Expr a, Expr b) { return CallNode::make(CallOp::ShiftLeft, {a, b}); }
Expr shift_right(Expr a, Expr b) { return CallNode::make(CallOp::ShiftRight, {a, b}); }
Expr likely(Expr cond) { return CallNode::make(CallOp::Likely, {cond}); }

Expr const_of(DType t, double value) {
  if (is_float(t)) return FloatImmNode::make(t, value);
  return IntImmNode::make(t, static_cast<int64_t>(value));
}

Expr sum(Expr source, std::vector<IterVar> axis) {
  return ReduceNode::make(ReduceOp::Sum, source, std::move(axis));
}
Expr max(Expr source, std::vector<IterVar> axis) {
  return ReduceNode::make(ReduceOp::Max, source, std::move(axis));
}
Expr min(Expr source, std::vector<IterVar> axis) {
  return ReduceNode::make(ReduceOp::Min, source, std::move(axis));
}
Expr prod(Expr source, std::vector<IterVar> axis) {
  return ReduceNode::make(ReduceOp::Prod, source, std::move(axis));
}

const int64_t* as_const_int(const Expr& e) {
  const IntImmNode* n = e.as<IntImmNode>();
  return n ? &n->value : nullptr;
}

}  // namespace mrd::ir
