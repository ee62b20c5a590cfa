#include "common/interp/scalar_ops.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "common/util/error.h"

using namespace mrd;
using namespace mrd::interp;
using ir::BinaryOp;
using ir::CallOp;
using ir::DType;

TEST_CASE("integer division rounds as TVM does", "[interp]") {
  CHECK(int_binary(BinaryOp::Div, -7, 2) == -3);
  CHECK(int_binary(BinaryOp::FloorDiv, -7, 2) == -4);
  CHECK(int_binary(BinaryOp::FloorMod, -7, 2) == 1);
  CHECK(int_binary(BinaryOp::FloorDiv, 7, -2) == -4);
  CHECK(int_binary(BinaryOp::FloorMod, 7, -2) == -1);
  CHECK(int_binary(BinaryOp::FloorDiv, 6, 3) == 2);
  CHECK(int_binary(BinaryOp::FloorMod, -6, 3) == 0);
  CHECK_THROWS_AS(int_binary(BinaryOp::FloorMod, 1, 0), InternalError);
  CHECK(is_division(BinaryOp::FloorMod));
  CHECK_FALSE(is_division(BinaryOp::Mul));
}

TEST_CASE("integer arithmetic wraps instead of overflowing", "[interp]") {
  const int64_t lo = std::numeric_limits<int64_t>::min();
  const int64_t hi = std::numeric_limits<int64_t>::max();
  CHECK(int_binary(BinaryOp::Add, hi, 1) == lo);
  CHECK(int_binary(BinaryOp::Div, lo, -1) == lo);
  CHECK(int_binary(BinaryOp::FloorDiv, lo, -1) == lo);
  CHECK(int_binary(BinaryOp::FloorMod, lo, -1) == 0);
  CHECK(wrap_int(DType::Int32, int64_t{1} << 31) == std::numeric_limits<int32_t>::min());
  CHECK(wrap_int(DType::Int64, int64_t{1} << 31) == int64_t{1} << 31);
  CHECK(wrap_int(DType::Bool, 5) == 1);
}

TEST_CASE("comparisons yield 1 or 0 on both number kinds", "[interp]") {
  CHECK(int_binary(BinaryOp::LE, 3, 3) == 1);
  CHECK(int_binary(BinaryOp::GT, 3, 3) == 0);
  CHECK(float_binary(BinaryOp::LT, 0.5, 1.5) == 1.0);
  CHECK(float_binary(BinaryOp::NE, 0.5, 0.5) == 0.0);
  CHECK_THROWS_AS(float_binary(BinaryOp::FloorDiv, 1.0, 2.0), InternalError);
  CHECK_THROWS_AS(int_binary(BinaryOp::And, 1, 1), InternalError);
}

TEST_CASE("min and max return the first operand unless the second compares better", "[interp]") {
  double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(float_binary(BinaryOp::Min, 2.0, 1.0) == 1.0);
  CHECK(float_binary(BinaryOp::Max, 2.0, 1.0) == 2.0);
  CHECK(float_binary(BinaryOp::Max, 2.0, nan) == 2.0);
  CHECK(std::isnan(float_binary(BinaryOp::Min, nan, 2.0)));
  CHECK(float_binary(combine_op(ir::ReduceOp::Max), -1.0, 3.0) == 3.0);
  CHECK(int_binary(combine_op(ir::ReduceOp::Sum), 4, 5) == 9);
}

TEST_CASE("stored values take the element type's precision", "[interp]") {
  CHECK(store_value(DType::Float32, 0.1) == static_cast<double>(0.1f));
  CHECK(store_value(DType::Float64, 0.1) == 0.1);
  CHECK(store_value(DType::Int32, 2.9) == 2.0);
  CHECK(store_value(DType::Int32, -2.9) == -2.0);
  CHECK(store_value(DType::Int32, 4294967297.0) == 1.0);
  CHECK(store_value(DType::Bool, 0.5) == 1.0);
  CHECK(store_value(DType::Bool, 0.0) == 0.0);
}

TEST_CASE("math intrinsics compute in double", "[interp]") {
  CHECK(float_call(CallOp::Sigmoid, 0.0, 0.0) == 0.5);
  CHECK(float_call(CallOp::Pow, 2.0, 10.0) == 1024.0);
  CHECK(float_call(CallOp::Fabs, -3.0, 0.0) == 3.0);
  CHECK(float_call(CallOp::Exp, 1.0, 0.0) == std::exp(1.0));
  CHECK(float_call(CallOp::Erf, 0.5, 0.0) == std::erf(0.5));
  CHECK(float_call(CallOp::Floor, -2.5, 0.0) == -3.0);
  CHECK(float_call(CallOp::Ceil, -2.5, 0.0) == -2.0);
  CHECK(float_call(CallOp::Trunc, -2.5, 0.0) == -2.0);
  CHECK(float_call(CallOp::Round, -2.5, 0.0) == -3.0);  // halfway away from zero, as llvm.round
  CHECK(float_call(CallOp::Round, 2.5, 0.0) == 3.0);
  CHECK(float_call(CallOp::Rsqrt, 4.0, 0.0) == 0.5);
  CHECK(float_call(CallOp::Sin, 0.5, 0.0) == std::sin(0.5));
  CHECK(float_call(CallOp::Cos, 0.5, 0.0) == std::cos(0.5));
  CHECK(float_call(CallOp::Exp2, 10.0, 0.0) == 1024.0);
  CHECK(float_call(CallOp::Log2, 1024.0, 0.0) == 10.0);
  CHECK(float_call(CallOp::Log10, 1000.0, 0.0) == 3.0);
  CHECK(float_call(CallOp::IsNan, std::nan(""), 0.0) == 1.0);
  CHECK(float_call(CallOp::IsNan, INFINITY, 0.0) == 0.0);
  CHECK_THROWS_AS(float_call(CallOp::IfThenElse, 1.0, 0.0), InternalError);
}
