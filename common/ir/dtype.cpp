#include "common/ir/dtype.h"

#include "common/util/error.h"

namespace mrd::ir {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int8: return "int8";
    case DType::UInt8: return "uint8";
    case DType::Int16: return "int16";
    case DType::UInt16: return "uint16";
    case DType::UInt32: return "uint32";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : {DType::Bool, DType::Int8, DType::UInt8, DType::Int16, DType::UInt16,
                  DType::Int32, DType::UInt32, DType::Int64, DType::Float32, DType::Float64}) {
    if (dtype_name(t) == name) return t;
  }
  return std::nullopt;
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8: return 1;
    case DType::Int16:
    case DType::UInt16: return 2;
    case DType::Int32:
    case DType::UInt32:
    case DType::Float32: return 4;
    case DType::Int64:
    case DType::Float64: return 8;
  }
  return 0;
}

int dtype_bits(DType t) { return t == DType::Bool ? 1 : 8 * dtype_bytes(t); }

DType int_type(int bits, bool is_signed) {
  switch (bits) {
    case 8: return is_signed ? DType::Int8 : DType::UInt8;
    case 16: return is_signed ? DType::Int16 : DType::UInt16;
    case 32: return is_signed ? DType::Int32 : DType::UInt32;
    case 64:
      if (is_signed) return DType::Int64;
      break;
  }
  throw UserError(str_cat("no ", is_signed ? "" : "u", "int", bits, " type in measurerd"));
}

}  // namespace mrd::ir
