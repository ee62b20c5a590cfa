// Element types of tensors and expressions. Bool exists only for conditions; int8, uint8,
// int16, uint16 and uint32 are element types of quantized and integer tensors (their
// arithmetic wraps at their width; the unsigned ones hold 0..2^bits-1 and compare, divide,
// shift and convert as unsigned, as TVM's uint).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mrd::ir {

enum class DType : uint8_t { Bool, Int32, Int64, Float32, Float64, Int8, UInt8, Int16, UInt16, UInt32 };

/// TVM's spelling: "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
/// "float32", "float64".
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);

inline bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64; }
/// The integer types (not bool), signed or not.
inline bool is_int(DType t) { return t != DType::Bool && !is_float(t); }
inline bool is_unsigned(DType t) {
  return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32;
}
/// The types of loop variables and tensor indices: int32 and int64.
inline bool is_index(DType t) { return t == DType::Int32 || t == DType::Int64; }
/// Size of one element in bytes (Bool counts as 1).
int dtype_bytes(DType t);
/// Width in bits, as TVM's DataType::bits(): 1 for bool.
int dtype_bits(DType t);
/// The integer type of `bits` (8, 16, 32 or 64) and the given signedness (no uint64: it
/// throws UserError).
DType int_type(int bits, bool is_signed);

}  // namespace mrd::ir
