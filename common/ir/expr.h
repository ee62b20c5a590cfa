// Expressions of the tensor language and of the lowered loop IR, after Halide's IR.h: one
// macro lists every node kind; nodes are immutable structs with public fields, created only
// through their make() functions, which check invariants and match operand types.
// Identity matters: a Var is the same variable only if it is the same node, and a tensor read
// refers to its producing operation by pointer (TVM's tensor equality).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/ir/dtype.h"

namespace mrd::ir {

#define MRD_EXPR_NODES(X) \
  X(IntImm)               \
  X(FloatImm)             \
  X(Var)                  \
  X(Binary)               \
  X(Not)                  \
  X(Select)               \
  X(Cast)                 \
  X(Call)                 \
  X(TensorRead)           \
  X(Reduce)               \
  X(BufferLoad)           \
  X(Ramp)                 \
  X(Broadcast)

enum class ExprKind : uint8_t {
#define MRD_ENUM_ENTRY(name) name,
  MRD_EXPR_NODES(MRD_ENUM_ENTRY)
#undef MRD_ENUM_ENTRY
};

struct ExprNode;
struct OperationNode;
struct BufferNode;
using Operation = std::shared_ptr<const OperationNode>;
using Buffer = std::shared_ptr<const BufferNode>;

/// A handle to an immutable expression node. Comparison operators build expressions; use
/// same_as() for identity.
class Expr {
 public:
  Expr() = default;
  Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}
  /// An int32 immediate (converted to the other operand's type when combined).
  Expr(int value);
  Expr(int64_t value);
  /// A float32 immediate (converted to the other operand's type when combined).
  Expr(float value);
  Expr(double value);

  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  const std::shared_ptr<const ExprNode>& node() const { return node_; }
  bool defined() const { return node_ != nullptr; }
  bool same_as(const Expr& other) const { return node_ == other.node_; }
  /// The node as T if its kind is T's, else nullptr.
  template <typename T>
  const T* as() const;

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct ExprNode {
  ExprKind kind;
  DType dtype;
  /// 1 for a scalar; the number of SIMD lanes of a vector value (only after VectorizeLoop).
  /// Every lane has type `dtype`.
  int lanes = 1;

 protected:
  ExprNode(ExprKind k, DType t) : kind(k), dtype(t) {}
};

template <typename T>
const T* Expr::as() const {
  return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
}

/// A variable: a loop index, a compute axis or a reduction axis. Equal only to itself.
class Var : public Expr {
 public:
  explicit Var(std::string name, DType dtype = DType::Int32);
  /// A variable holding a vector of `lanes` values of `dtype`.
  Var(std::string name, DType dtype, int lanes);
  /// Views an expression known to be a VarNode as a Var.
  static Var from(const Expr& e);
  const std::string& name() const;

 private:
  explicit Var(std::shared_ptr<const ExprNode> node) : Expr(std::move(node)) {}
};

enum class IterKind : uint8_t { DataPar, Reduce };

/// An axis of a compute op: its variable ranges over [min, min + extent).
struct IterVar {
  Var var;
  int64_t min = 0;
  int64_t extent = 0;
  IterKind kind = IterKind::DataPar;
  /// Used in an expression, an axis is its variable (as in TE: A(i, k)).
  operator Expr() const { return var; }
};

/// An integer immediate of an integer or bool type.
struct IntImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::IntImm;
  int64_t value;
  static Expr make(DType t, int64_t value);
  IntImmNode(DType t, int64_t v) : ExprNode(kKind, t), value(v) {}
};

/// A floating-point immediate.
struct FloatImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::FloatImm;
  double value;
  static Expr make(DType t, double value);
  FloatImmNode(DType t, double v) : ExprNode(kKind, t), value(v) {}
};

struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Var;
  std::string name;
  VarNode(DType t, std::string n) : ExprNode(kKind, t), name(std::move(n)) {}
};

/// Div is true division for floats and truncating division for integers (TVM's Div); Mod is
/// TVM's Mod (truncmod): the remainder of truncating division, with the dividend's sign, for
/// integers and floats (fmod). FloorDiv and FloorMod are for integers. Comparisons and And/Or
/// yield Bool.
enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, FloorDiv, FloorMod, Min, Max, EQ, NE, LT, LE, GT, GE, And, Or, Mod
};
std::string_view binary_op_name(BinaryOp op);
bool is_comparison(BinaryOp op);

struct BinaryNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Binary;
  BinaryOp op;
  Expr a, b;
  /// Matches operand types as TVM does: an immediate takes the other side's type; otherwise
  /// int converts to float and int32 to int64.
  static Expr make(BinaryOp op, Expr a, Expr b);
  BinaryNode(DType t, BinaryOp o, Expr x, Expr y)
      : ExprNode(kKind, t), op(o), a(std::move(x)), b(std::move(y)) {}
};

struct NotNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Not;
  Expr a;
  static Expr make(Expr a);
  explicit NotNode(Expr x) : ExprNode(kKind, DType::Bool), a(std::move(x)) {}
};

/// cond ? t : f. Codegen evaluates only the chosen branch, so a select may guard a read.
struct SelectNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  Expr cond, t, f;
  static Expr make(Expr cond, Expr t, Expr f);
  SelectNode(DType d, Expr c, Expr x, Expr y)
      : ExprNode(kKind, d), cond(std::move(c)), t(std::move(x)), f(std::move(y)) {}
};

struct CastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  Expr value;
  static Expr make(DType t, Expr value);
  CastNode(DType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
};

/// Intrinsic calls. IfThenElse(cond, t, f) is TVM's tir.if_then_else; Likely(cond) marks a
/// condition expected true (bound guards). Erf, Floor, Ceil, Trunc, Round, Rsqrt, Sin, Cos,
/// Exp2, Log2, Log10 and IsNan are TVM's tir.erf, tir.floor, ...; Round rounds halfway cases
/// away from zero (tir.round, llvm.round); IsNan is bool. BitwiseAnd, BitwiseOr, BitwiseXor,
/// BitwiseNot, ShiftLeft and ShiftRight are TVM's tir.bitwise_and, ..., tir.shift_right, on
/// integers (the bitwise ones on bools too); ShiftRight is arithmetic for signed types and
/// logical for unsigned ones.
enum class CallOp : uint8_t {
  Exp, Log, Sqrt, Tanh, Sigmoid, Fabs, Pow, IfThenElse, Likely, Erf, Floor, Ceil, Trunc, Round, Rsqrt,
  Sin, Cos, Exp2, Log2, Log10, IsNan, BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot, ShiftLeft,
  ShiftRight
};
std::string_view call_op_name(CallOp op);
/// The integer intrinsics: BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot, ShiftLeft, ShiftRight.
bool is_integer_call(CallOp op);
/// Number of arguments the intrinsic takes.
int call_op_arity(CallOp op);

struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  CallOp op;
  std::vector<Expr> args;
  static Expr make(CallOp op, std::vector<Expr> args);
  CallNode(DType t, CallOp o, std::vector<Expr> a) : ExprNode(kKind, t), op(o), args(std::move(a)) {}
};

/// A read of the tensor produced by `op` (TVM's ProducerLoad), one index per dimension.
struct TensorReadNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::TensorRead;
  Operation op;
  std::vector<Expr> indices;
  static Expr make(Operation op, std::vector<Expr> indices);
  TensorReadNode(DType t, Operation o, std::vector<Expr> i)
      : ExprNode(kKind, t), op(std::move(o)), indices(std::move(i)) {}
};

enum class ReduceOp : uint8_t { Sum, Max, Min, Prod };
std::string_view reduce_op_name(ReduceOp op);
/// The combiner's identity: 0 for sum, 1 for prod, the lowest finite value for max, the highest
/// for min.
Expr reduce_identity(ReduceOp op, DType t);
/// combiner(acc, value): acc + value, max(acc, value), min(acc, value) or acc * value.
Expr reduce_combine(ReduceOp op, Expr acc, Expr value);

/// A reduction of `source` over `axis`, counting only points where `condition` holds
/// (undefined condition = everywhere). Only the top of a compute body may be a Reduce.
struct ReduceNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Reduce;
  ReduceOp op;
  Expr source;
  std::vector<IterVar> axis;
  Expr condition;
  static Expr make(ReduceOp op, Expr source, std::vector<IterVar> axis, Expr condition = Expr());
  ReduceNode(DType t, ReduceOp o, Expr s, std::vector<IterVar> a, Expr c)
      : ExprNode(kKind, t), op(o), source(std::move(s)), axis(std::move(a)), condition(std::move(c)) {}
};

/// A read of a buffer of the lowered program, one index per dimension of the buffer's shape
/// (a single index once storage is flattened).
struct BufferLoadNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::BufferLoad;
  Buffer buffer;
  std::vector<Expr> indices;
  static Expr make(Buffer buffer, std::vector<Expr> indices);
  BufferLoadNode(DType t, Buffer b, std::vector<Expr> i)
      : ExprNode(kKind, t), buffer(std::move(b)), indices(std::move(i)) {}
};

/// The vector [base, base + stride, ..., base + (lanes - 1) * stride] of an integer type.
struct RampNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Ramp;
  Expr base, stride;
  static Expr make(Expr base, Expr stride, int lanes);
  RampNode(DType t, Expr b, Expr s) : ExprNode(kKind, t), base(std::move(b)), stride(std::move(s)) {}
};

/// The scalar `value` repeated in `lanes` lanes.
struct BroadcastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Broadcast;
  Expr value;
  static Expr make(Expr value, int lanes);
  BroadcastNode(DType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
};

/// Most lanes a vector may have.
inline constexpr int kMaxLanes = 1024;

/// e with `lanes` lanes: e itself when it has them, a Broadcast of a scalar otherwise.
Expr broadcast_to(const Expr& e, int lanes);

// Builders that read like TE. Arithmetic on Expr builds nodes.
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr truncmod(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr select(Expr cond, Expr t, Expr f);
Expr if_then_else(Expr cond, Expr t, Expr f);
Expr cast(DType t, Expr value);
Expr exp(Expr x);
Expr log(Expr x);
Expr sqrt(Expr x);
Expr tanh(Expr x);
Expr sigmoid(Expr x);
Expr fabs(Expr x);
Expr pow(Expr x, Expr y);
Expr erf(Expr x);
Expr floor(Expr x);
Expr ceil(Expr x);
Expr trunc(Expr x);
Expr round(Expr x);
Expr rsqrt(Expr x);
Expr sin(Expr x);
Expr cos(Expr x);
Expr exp2(Expr x);
Expr log2(Expr x);
Expr log10(Expr x);
Expr isnan(Expr x);
Expr bitwise_and(Expr a, Expr b);
Expr bitwise_or(Expr a, Expr b);
Expr bitwise_xor(Expr a, Expr b);
Expr bitwise_not(Expr a);
Expr shift_left(Expr a, Expr b);
Expr shift_right(Expr a, Expr b);
Expr likely(Expr cond);
Expr const_of(DType t, double value);

/// Reductions, as te.sum / te.max / te.min / topi's prod with an axis list.
Expr sum(Expr source, std::vector<IterVar> axis);
Expr max(Expr source, std::vector<IterVar> axis);
Expr min(Expr source, std::vector<IterVar> axis);
Expr prod(Expr source, std::vector<IterVar> axis);

/// The integer value of an IntImm, if e is one.
const int64_t* as_const_int(const Expr& e);

}  // namespace mrd::ir
