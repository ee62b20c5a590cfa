// The IR's operators on concrete values, shared by the reference interpreter and the PrimFunc
// evaluator so that both compute every operator the same way. Float operators work in double;
// integer operators in int64 with two's-complement wrap-around. When a result is rounded to
// its stored type (store_value, wrap_int) is the caller's policy, as are lazy evaluation
// (And, Or, if_then_else) and how a division by zero is reported.
#pragma once

#include <cstdint>

#include "common/ir/expr.h"

namespace mrd::interp {

/// An integer result wrapped to the width of t: int32 wraps, bool is 0 or 1, int64 unchanged.
int64_t wrap_int(ir::DType t, int64_t v);

/// v as held in an element of type t: float32 rounds to the nearest float, float64 is
/// unchanged, int32/int64 truncate toward zero and wrap, bool is v != 0.
double store_value(ir::DType t, double v);

/// a / b rounded toward negative infinity; b != 0.
int64_t floor_div(int64_t a, int64_t b);

/// Div, FloorDiv and FloorMod: the operators whose integer form needs a non-zero divisor.
bool is_division(ir::BinaryOp op);

/// Add, Sub, Mul, Div, Min, Max and the comparisons (1 or 0) in double. Throws InternalError
/// for the integer-only operators (FloorDiv, FloorMod, And, Or).
double float_binary(ir::BinaryOp op, double x, double y);

/// Wrapping Add, Sub, Mul; truncating Div; FloorDiv, FloorMod, Min, Max and the comparisons
/// (1 or 0). A division operator needs y != 0. Throws InternalError for And and Or, which the
/// caller short-circuits.
int64_t int_binary(ir::BinaryOp op, int64_t x, int64_t y);

/// The math intrinsics in double: Exp, Log, Sqrt, Tanh, Sigmoid, Fabs, and Pow (x to the power
/// y; the others ignore y). Throws InternalError for IfThenElse and Likely, which the caller
/// evaluates itself.
double float_call(ir::CallOp op, double x, double y);

/// The binary operator that folds a value into a reduction's accumulator (Sum is Add).
ir::BinaryOp combine_op(ir::ReduceOp op);

}  // namespace mrd::interp
