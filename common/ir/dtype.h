// Element types of tensors and expressions. Bool exists only for conditions; int8 and uint8
// are element types of quantized tensors (their arithmetic wraps at 8 bits, uint8's values are
// 0..255 and compare, divide and convert as unsigned, as TVM's uint).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mrd::ir {

enum class DType : uint8_t { Bool, Int32, Int64, Float32, Float64, Int8, UInt8 };

/// TVM's spelling: "bool", "int8", "uint8", "int32", "int64", "float32", "float64".
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);

inline bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64; }
/// The integer types (not bool), signed or not.
inline bool is_int(DType t) {
  return t == DType::Int8 || t == DType::UInt8 || t == DType::Int32 || t == DType::Int64;
}
inline bool is_unsigned(DType t) { return t == DType::UInt8; }
/// The types of loop variables and tensor indices: int32 and int64.
inline bool is_index(DType t) { return t == DType::Int32 || t == DType::Int64; }
/// Size of one element in bytes (Bool counts as 1).
int dtype_bytes(DType t);

}  // namespace mrd::ir
