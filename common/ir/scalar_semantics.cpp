#include "common/ir/scalar_semantics.h"

#include <cmath>
#include <limits>

#include "common/util/error.h"

namespace mrd::ir {

namespace {

uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
// Conversion of an out-of-range uint64 to int64 is modular since C++20 and in every C++17
// compiler measurerd supports.
int64_t s(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

int64_t int_min(DType t) {
  if (t == DType::Bool || is_unsigned(t)) return 0;
  return t == DType::Int64 ? std::numeric_limits<int64_t>::min()
                           : -(int64_t{1} << (dtype_bits(t) - 1));
}

int64_t int_max(DType t) {
  if (t == DType::Bool) return 1;
  if (t == DType::Int64) return std::numeric_limits<int64_t>::max();
  return (int64_t{1} << (dtype_bits(t) - (is_unsigned(t) ? 0 : 1))) - 1;
}

bool fits(DType t, int64_t v) {
  if (is_float(t)) return false;
  return v >= int_min(t) && v <= int_max(t);
}

int64_t wrap_int(DType t, int64_t v) {
  if (t == DType::Bool) return v != 0;
  if (t == DType::Int64) return v;
  const int bits = dtype_bits(t);
  uint64_t low = u(v) & ((uint64_t{1} << bits) - 1);
  if (!is_unsigned(t) && (low >> (bits - 1)) != 0) low |= ~uint64_t{0} << bits;  // sign-extend
  return s(low);
}

int64_t float_to_int(DType t, double v) {
  if (t == DType::Bool) return v != 0;
  if (!std::isfinite(v)) {
    // x86's "integer indefinite" of the conversion's width (an 8-bit result is the low byte
    // of a 32-bit conversion's, 0).
    if (dtype_bytes(t) < 4 || t == DType::UInt32) return 0;
    return t == DType::Int32 ? std::numeric_limits<int32_t>::min()
                             : std::numeric_limits<int64_t>::min();
  }
  constexpr double kTwo63 = 9223372036854775808.0;  // 2^63, exact in double
  double r = std::trunc(v);
  if (r >= -kTwo63 && r < kTwo63) return wrap_int(t, static_cast<int64_t>(r));
  // |r| >= 2^63: a multiple of 2^11 whose residue modulo 2^64 fmod computes exactly.
  double m = std::fmod(r, 2 * kTwo63);  // in (-2^64, 2^64), exact
  if (m < 0) m += 2 * kTwo63;           // in [0, 2^64), exact: both are multiples of 2^11
  uint64_t bits = m >= kTwo63 ? static_cast<uint64_t>(m - kTwo63) + (uint64_t{1} << 63)
                              : static_cast<uint64_t>(m);
  return wrap_int(t, s(bits));
}

double detail::store_value_out_of_line(DType t, double v) {
  switch (t) {
    case DType::Float32:
      return to_float32(v);
    case DType::Float64:
      return v;
    case DType::Bool:
      return v != 0 ? 1.0 : 0.0;
    default:
      return static_cast<double>(float_to_int(t, v));
  }
}

int64_t floor_div(int64_t a, int64_t b) {
  if (b == -1) return wrapping_neg(a);  // a / -1 and a % -1 overflow for INT64_MIN
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

int64_t trunc_mod(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }

bool is_division(BinaryOp op) {
  return op == BinaryOp::Div || op == BinaryOp::Mod || op == BinaryOp::FloorDiv ||
         op == BinaryOp::FloorMod;
}

namespace {

/// Min, Max and the comparisons (1 or 0): the operators that only order their operands, the
/// same for every number type. `kind` names the type in the error for any other operator.
template <class T>
T by_order(BinaryOp op, T x, T y, const char* kind) {
  switch (op) {
    case BinaryOp::Min:
      return y < x ? y : x;
    case BinaryOp::Max:
      return y > x ? y : x;
    case BinaryOp::EQ:
      return x == y;
    case BinaryOp::NE:
      return x != y;
    case BinaryOp::LT:
      return x < y;
    case BinaryOp::LE:
      return x <= y;
    case BinaryOp::GT:
      return x > y;
    case BinaryOp::GE:
      return x >= y;
    default:
      break;
  }
  throw InternalError(str_cat("operator ", binary_op_name(op), " has no ", kind, " form"));
}

}  // namespace

double float_binary(BinaryOp op, double x, double y) {
  switch (op) {
    case BinaryOp::Add:
      return x + y;
    case BinaryOp::Sub:
      return x - y;
    case BinaryOp::Mul:
      return x * y;
    case BinaryOp::Div:
      return x / y;
    case BinaryOp::Mod:
      return std::fmod(x, y);
    default:
      return by_order(op, x, y, "float");
  }
}

int64_t int_binary(BinaryOp op, int64_t x, int64_t y) {
  switch (op) {
    case BinaryOp::Add:
      return wrapping_add(x, y);
    case BinaryOp::Sub:
      return wrapping_sub(x, y);
    case BinaryOp::Mul:
      return wrapping_mul(x, y);
    case BinaryOp::Div:
      MRD_CHECK(y != 0, "integer / by zero");
      return y == -1 ? wrapping_neg(x) : x / y;
    case BinaryOp::Mod:
      MRD_CHECK(y != 0, "integer truncmod by zero");
      return trunc_mod(x, y);
    case BinaryOp::FloorDiv:
      MRD_CHECK(y != 0, "integer floordiv by zero");
      return floor_div(x, y);
    case BinaryOp::FloorMod:
      MRD_CHECK(y != 0, "integer floormod by zero");
      return floor_mod(x, y);
    default:
      return by_order(op, x, y, "integer");
  }
}

double float_call(CallOp op, double x, double y) {
  switch (op) {
    case CallOp::Exp:
      return std::exp(x);
    case CallOp::Log:
      return std::log(x);
    case CallOp::Sqrt:
      return std::sqrt(x);
    case CallOp::Tanh:
      return std::tanh(x);
    case CallOp::Sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case CallOp::Fabs:
      return std::fabs(x);
    case CallOp::Pow:
      return std::pow(x, y);
    case CallOp::Erf:
      return std::erf(x);
    case CallOp::Floor:
      return std::floor(x);
    case CallOp::Ceil:
      return std::ceil(x);
    case CallOp::Trunc:
      return std::trunc(x);
    case CallOp::Round:
      return std::round(x);
    case CallOp::Rsqrt:
      return 1.0 / std::sqrt(x);
    case CallOp::Sin:
      return std::sin(x);
    case CallOp::Cos:
      return std::cos(x);
    case CallOp::Exp2:
      return std::exp2(x);
    case CallOp::Log2:
      return std::log2(x);
    case CallOp::Log10:
      return std::log10(x);
    case CallOp::IsNan:
      return std::isnan(x) ? 1.0 : 0.0;
    default:
      break;
  }
  throw InternalError(str_cat("call ", call_op_name(op), " is not a math intrinsic"));
}

int64_t int_call(CallOp op, DType t, int64_t x, int64_t y) {
  const int64_t bits = dtype_bits(t);
  switch (op) {
    case CallOp::BitwiseAnd:
      return wrap_int(t, x & y);
    case CallOp::BitwiseOr:
      return wrap_int(t, x | y);
    case CallOp::BitwiseXor:
      return wrap_int(t, x ^ y);
    case CallOp::BitwiseNot:
      return wrap_int(t, ~x);
    case CallOp::ShiftLeft:
      if (y < 0 || y >= bits) return 0;
      return wrap_int(t, s(u(x) << y));
    case CallOp::ShiftRight:
      // x holds a value of t: sign-extended when signed, non-negative when unsigned, so an
      // arithmetic shift of the int64 is the type's own shift.
      if (y < 0 || y >= bits) return x < 0 ? -1 : 0;
      return x >> y;
    default:
      break;
  }
  throw InternalError(str_cat("call ", call_op_name(op), " is not an integer intrinsic"));
}

BinaryOp combine_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return BinaryOp::Add;
    case ReduceOp::Max:
      return BinaryOp::Max;
    case ReduceOp::Min:
      return BinaryOp::Min;
    case ReduceOp::Prod:
      return BinaryOp::Mul;
  }
  throw InternalError("unknown reduction operator");
}

}  // namespace mrd::ir
