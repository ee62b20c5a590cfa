// The numbers and names by which both archive forms spell node kinds, element types and
// operators. They are part of the format, independent of the order of the IR's enums.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/ir/expr.h"

namespace mrd::serialize {

/// Node kinds; the value is the binary code.
enum class NodeKind : uint8_t {
  Placeholder = 0,
  Compute = 1,
  IntImm = 2,
  FloatImm = 3,
  Var = 4,
  Binary = 5,
  Not = 6,
  Select = 7,
  Cast = 8,
  Call = 9,
  TensorRead = 10,
  Reduce = 11,
};
constexpr uint8_t kNumNodeKinds = 12;

/// The fields a node kind carries; both forms store them in this order.
enum NodeField : uint16_t {
  kFieldName = 1 << 0,
  kFieldTag = 1 << 1,
  kFieldDType = 1 << 2,
  kFieldOp = 1 << 3,
  kFieldIntValue = 1 << 4,
  kFieldFloatValue = 1 << 5,
  kFieldShape = 1 << 6,
  kFieldAxis = 1 << 7,
  kFieldRef = 1 << 8,
  kFieldOperands = 1 << 9,
  kFieldLayoutFree = 1 << 10,  ///< from format version 2
};
/// The fields of `kind` in archives of format `version`.
uint16_t node_fields(NodeKind kind, uint32_t version);

bool is_op_kind(NodeKind kind);
/// JSON spelling, e.g. "tensor_read".
std::string_view node_kind_name(NodeKind kind);
std::optional<NodeKind> node_kind_from_name(std::string_view name);
/// JSON name of the reference field: "body" (Compute) or "tensor" (TensorRead).
const char* ref_field_name(NodeKind kind);

/// Element types: bool 0, int32 1, int64 2, float32 3, float64 4.
uint8_t dtype_code(ir::DType t);
std::optional<ir::DType> dtype_from_code(uint8_t code);

/// Operator codes of Binary, Call and Reduce nodes (see the format document for the tables).
uint8_t binary_op_code(ir::BinaryOp op);
std::optional<ir::BinaryOp> binary_op_from_code(uint8_t code);
uint8_t call_op_code(ir::CallOp op);
std::optional<ir::CallOp> call_op_from_code(uint8_t code);
uint8_t reduce_op_code(ir::ReduceOp op);
std::optional<ir::ReduceOp> reduce_op_from_code(uint8_t code);

/// JSON spelling of an operator code of a node kind ("+", "exp", "sum"); empty if unknown.
std::string_view op_name(NodeKind kind, uint8_t code);
std::optional<uint8_t> op_code_from_name(NodeKind kind, std::string_view name);

}  // namespace mrd::serialize
