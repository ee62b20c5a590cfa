// The IR's operators on concrete values: the one definition that constant folding in lowering,
// the reference interpreter and the PrimFunc evaluator all use, so that a folded constant and
// an interpreted value always agree. Integer operators work in int64 with two's-complement
// wrap-around (what the generated C does on every supported target); float operators in
// double. Every function here is defined for every input: no signed overflow, no INT64_MIN / -1,
// no out-of-range float-to-integer conversion. Division by zero is the caller's to report
// (is_division tells which operators need a non-zero divisor); lazy evaluation (And, Or,
// if_then_else) and when a result is rounded to its stored type are the caller's policy too.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "common/ir/expr.h"

namespace mrd::ir {

/// a + b, a - b, a * b and -a modulo 2^64. (Conversion of an out-of-range uint64 to int64 is
/// modular since C++20 and in every C++17 compiler measurerd supports.)
inline int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrapping_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrapping_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
inline int64_t wrapping_neg(int64_t a) {
  return wrapping_sub(0, a);
}

/// a + b and a * b, or nullopt when the exact result does not fit int64.
std::optional<int64_t> checked_add(int64_t a, int64_t b);
std::optional<int64_t> checked_mul(int64_t a, int64_t b);

/// The least and greatest values of integer or bool type t.
int64_t int_min(DType t);
int64_t int_max(DType t);

/// True when v is representable in integer or bool type t (bool: 0 or 1).
bool fits(DType t, int64_t v);

/// An integer result wrapped to the width of t: the signed types to their signed range, the
/// unsigned ones to 0..2^bits-1, bool is 0 or 1, int64 unchanged.
int64_t wrap_int(DType t, int64_t v);

/// A double converted to integer type t: truncated toward zero and wrapped modulo 2^width of
/// t (so an int64 value carried in a double keeps its wrap-around meaning); NaN and infinities
/// become what x86's conversion of the type's width gives (the minimum of int32 and int64;
/// 0 for the narrower types and uint32, the low bits of a wider conversion's). Bool is v != 0.
int64_t float_to_int(DType t, double v);

/// v rounded to the nearest float32 value; beyond float32's range it becomes an infinity (as
/// IEEE rounding does, without relying on the out-of-range conversion C++ leaves undefined).
inline double to_float32(double v) {
  // Halfway between FLT_MAX and the next power of two: round-to-nearest goes to infinity from
  // here on.
  constexpr double kOverflow = 0x1.ffffffp127;
  if (std::isnan(v)) return v;
  if (std::fabs(v) >= kOverflow) return std::copysign(std::numeric_limits<double>::infinity(), v);
  return static_cast<double>(static_cast<float>(v));
}

namespace detail {
double store_value_out_of_line(DType t, double v);
}

/// v as held in an element of type t: float32 rounds to the nearest float, float64 is
/// unchanged, the integer types convert as float_to_int, bool is v != 0.
inline double store_value(DType t, double v) {
  return t == DType::Float32 ? to_float32(v) : detail::store_value_out_of_line(t, v);
}

/// a / b rounded toward negative infinity, as the generated C's mrd_floordiv; b != 0.
/// INT64_MIN / -1 wraps to INT64_MIN.
int64_t floor_div(int64_t a, int64_t b);

/// a - floor_div(a, b) * b, with the sign of b, as the generated C's mrd_floormod; b != 0.
int64_t floor_mod(int64_t a, int64_t b);

/// a - trunc(a / b) * b, with the sign of a (C's %); b != 0. INT64_MIN % -1 is 0.
int64_t trunc_mod(int64_t a, int64_t b);

/// Div, Mod, FloorDiv and FloorMod: the operators whose integer form needs a non-zero divisor.
bool is_division(BinaryOp op);

/// Add, Sub, Mul, Div, Mod (fmod), Min, Max and the comparisons (1 or 0) in double. Throws
/// InternalError for the integer-only operators (FloorDiv, FloorMod, And, Or).
double float_binary(BinaryOp op, double x, double y);

/// Wrapping Add, Sub, Mul; truncating Div and Mod; FloorDiv, FloorMod, Min, Max and the
/// comparisons (1 or 0). A division operator needs y != 0 (InternalError otherwise). Throws
/// InternalError for And and Or, which the caller short-circuits.
int64_t int_binary(BinaryOp op, int64_t x, int64_t y);

/// The integer intrinsics (is_integer_call) on values of type t, wrapped to t. A shift by an
/// amount outside 0..bits-1 of t, which LLVM leaves undefined (poison) in TVM's build too, is
/// defined here as the limit of shifting one bit at a time: 0 to the left, the sign to the
/// right. y is ignored by BitwiseNot.
int64_t int_call(CallOp op, DType t, int64_t x, int64_t y);

/// The math intrinsics in double: Exp, Log, Sqrt, Tanh, Sigmoid, Fabs, Erf, Floor, Ceil, Trunc,
/// Round (halfway cases away from zero), Rsqrt (1 / sqrt x), Sin, Cos, Exp2, Log2, Log10, IsNan
/// (1 or 0) and Pow (x to the power y; the others ignore y). Throws InternalError for IfThenElse
/// and Likely, which the caller evaluates itself.
double float_call(CallOp op, double x, double y);

/// The binary operator that folds a value into a reduction's accumulator (Sum is Add, Prod Mul).
BinaryOp combine_op(ReduceOp op);

}  // namespace mrd::ir
