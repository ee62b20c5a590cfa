#include "common/ir/dtype.h"

namespace mrd::ir {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int8: return "int8";
    case DType::UInt8: return "uint8";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : {DType::Bool, DType::Int8, DType::UInt8, DType::Int32, DType::Int64,
                  DType::Float32, DType::Float64}) {
    if (dtype_name(t) == name) return t;
  }
  return std::nullopt;
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8: return 1;
    case DType::Int32:
    case DType::Float32: return 4;
    case DType::Int64:
    case DType::Float64: return 8;
  }
  return 0;
}

}  // namespace mrd::ir
