// Element types of tensors and expressions. Bool exists only for conditions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mrd::ir {

enum class DType : uint8_t { Bool, Int32, Int64, Float32, Float64 };

/// TVM's spelling: "bool", "int32", "int64", "float32", "float64".
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);

inline bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64; }
inline bool is_int(DType t) { return t == DType::Int32 || t == DType::Int64; }
/// Size of one element in bytes (Bool counts as 1).
int dtype_bytes(DType t);

}  // namespace mrd::ir
