#include "common/serialize/wire_codes.h"

namespace mrd::serialize {

namespace {

using ir::BinaryOp;
using ir::CallOp;
using ir::DType;
using ir::ReduceOp;

// Index = wire code.
constexpr DType kDTypes[] = {DType::Bool,    DType::Int32, DType::Int64,  DType::Float32,
                             DType::Float64, DType::Int8,  DType::UInt8,  DType::Int16,
                             DType::UInt16,  DType::UInt32};
constexpr BinaryOp kBinaryOps[] = {
    BinaryOp::Add,      BinaryOp::Sub,      BinaryOp::Mul, BinaryOp::Div,
    BinaryOp::FloorDiv, BinaryOp::FloorMod, BinaryOp::Min, BinaryOp::Max,
    BinaryOp::EQ,       BinaryOp::NE,       BinaryOp::LT,  BinaryOp::LE,
    BinaryOp::GT,       BinaryOp::GE,       BinaryOp::And, BinaryOp::Or,
    BinaryOp::Mod};
constexpr CallOp kCallOps[] = {
    CallOp::Exp,    CallOp::Log,        CallOp::Sqrt,   CallOp::Tanh,  CallOp::Sigmoid,
    CallOp::Fabs,   CallOp::Pow,        CallOp::IfThenElse, CallOp::Likely, CallOp::Erf,
    CallOp::Floor,  CallOp::Ceil,       CallOp::Trunc,  CallOp::Round, CallOp::Rsqrt,
    CallOp::Sin,    CallOp::Cos,        CallOp::Exp2,   CallOp::Log2,  CallOp::Log10,
    CallOp::IsNan,  CallOp::BitwiseAnd, CallOp::BitwiseOr, CallOp::BitwiseXor, CallOp::BitwiseNot,
    CallOp::ShiftLeft, CallOp::ShiftRight};
constexpr ReduceOp kReduceOps[] = {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod};
constexpr std::string_view kKindNames[kNumNodeKinds] = {
    "placeholder", "compute", "int_imm", "float_imm", "var",         "binary",
    "not",         "select",  "cast",    "call",      "tensor_read", "reduce"};

template <typename E, size_t N>
uint8_t code_in(const E (&table)[N], E v) {
  for (size_t i = 0; i < N; ++i) {
    if (table[i] == v) return static_cast<uint8_t>(i);
  }
  return 0xff;
}

template <typename E, size_t N>
std::optional<E> from_code_in(const E (&table)[N], uint8_t code) {
  if (code >= N) return std::nullopt;
  return table[code];
}

}  // namespace

uint16_t node_fields(NodeKind kind, uint32_t version) {
  switch (kind) {
    case NodeKind::Placeholder:
      return kFieldName | kFieldDType | kFieldShape;
    case NodeKind::Compute:
      return kFieldName | kFieldTag | kFieldDType | kFieldAxis | kFieldRef | (version >= 2 ? kFieldLayoutFree : 0);
    case NodeKind::IntImm:
      return kFieldDType | kFieldIntValue;
    case NodeKind::FloatImm:
      return kFieldDType | kFieldFloatValue;
    case NodeKind::Var:
      return kFieldName | kFieldDType;
    case NodeKind::Binary:
    case NodeKind::Call:
      return kFieldDType | kFieldOp | kFieldOperands;
    case NodeKind::Not:
    case NodeKind::Select:
    case NodeKind::Cast:
      return kFieldDType | kFieldOperands;
    case NodeKind::TensorRead:
      return kFieldDType | kFieldRef | kFieldOperands;
    case NodeKind::Reduce:
      return kFieldDType | kFieldOp | kFieldAxis | kFieldOperands;
  }
  return 0;
}

bool is_op_kind(NodeKind kind) {
  return kind == NodeKind::Placeholder || kind == NodeKind::Compute;
}

std::string_view node_kind_name(NodeKind kind) {
  auto i = static_cast<uint8_t>(kind);
  return i < kNumNodeKinds ? kKindNames[i] : std::string_view();
}

std::optional<NodeKind> node_kind_from_name(std::string_view name) {
  for (uint8_t i = 0; i < kNumNodeKinds; ++i) {
    if (kKindNames[i] == name) return static_cast<NodeKind>(i);
  }
  return std::nullopt;
}

const char* ref_field_name(NodeKind kind) {
  return kind == NodeKind::Compute ? "body" : "tensor";
}

uint8_t dtype_code(DType t) {
  return code_in(kDTypes, t);
}
std::optional<DType> dtype_from_code(uint8_t code) {
  return from_code_in(kDTypes, code);
}
uint8_t binary_op_code(BinaryOp op) {
  return code_in(kBinaryOps, op);
}
std::optional<BinaryOp> binary_op_from_code(uint8_t code) {
  return from_code_in(kBinaryOps, code);
}
uint8_t call_op_code(CallOp op) {
  return code_in(kCallOps, op);
}
std::optional<CallOp> call_op_from_code(uint8_t code) {
  return from_code_in(kCallOps, code);
}
uint8_t reduce_op_code(ReduceOp op) {
  return code_in(kReduceOps, op);
}
std::optional<ReduceOp> reduce_op_from_code(uint8_t code) {
  return from_code_in(kReduceOps, code);
}

std::string_view op_name(NodeKind kind, uint8_t code) {
  switch (kind) {
    case NodeKind::Binary:
      if (auto op = binary_op_from_code(code)) return ir::binary_op_name(*op);
      break;
    case NodeKind::Call:
      if (auto op = call_op_from_code(code)) return ir::call_op_name(*op);
      break;
    case NodeKind::Reduce:
      if (auto op = reduce_op_from_code(code)) return ir::reduce_op_name(*op);
      break;
    default:
      break;
  }
  return {};
}

std::optional<uint8_t> op_code_from_name(NodeKind kind, std::string_view name) {
  for (unsigned code = 0; code < 256; ++code) {
    std::string_view n = op_name(kind, static_cast<uint8_t>(code));
    if (n.empty()) break;
    if (n == name) return static_cast<uint8_t>(code);
  }
  return std::nullopt;
}

}  // namespace mrd::serialize
