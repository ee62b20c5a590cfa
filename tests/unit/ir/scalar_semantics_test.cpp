// The scalar operator table on the values where C++ arithmetic is undefined: every result is
// defined and documented. Built with -fsanitize=undefined this also shows no step is UB.
#include "common/ir/scalar_semantics.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "common/ir/te.h"
#include "common/util/error.h"

using namespace mrd;
using namespace mrd::ir;

namespace {
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("wrapping and checked integer arithmetic", "[ir][scalar]") {
  CHECK(wrapping_add(kMax64, 1) == kMin64);
  CHECK(wrapping_sub(kMin64, 1) == kMax64);
  CHECK(wrapping_mul(kMax64, kMax64) == 1);
  CHECK(wrapping_mul(kMin64, -1) == kMin64);
  CHECK(wrapping_neg(kMin64) == kMin64);
  CHECK_FALSE(checked_add(kMax64, 1));
  CHECK(*checked_add(kMax64, -1) == kMax64 - 1);
  CHECK_FALSE(checked_mul(int64_t{1} << 32, int64_t{1} << 31));
  CHECK(*checked_mul(int64_t{1} << 31, int64_t{1} << 31) == int64_t{1} << 62);
  CHECK(fits(DType::Int32, kMin32));
  CHECK_FALSE(fits(DType::Int32, kMin32 - 1));
  CHECK_FALSE(fits(DType::Bool, 2));
}

TEST_CASE("int8 and uint8 values wrap to their range and convert as x86 does", "[ir][scalar]") {
  CHECK(fits(DType::Int8, -128));
  CHECK_FALSE(fits(DType::Int8, 128));
  CHECK(fits(DType::UInt8, 255));
  CHECK_FALSE(fits(DType::UInt8, -1));
  CHECK(wrap_int(DType::Int8, 200) == -56);
  CHECK(wrap_int(DType::UInt8, -56) == 200);
  CHECK(wrap_int(DType::UInt8, 270) == 14);
  CHECK(float_to_int(DType::Int8, -3.7) == -3);
  CHECK(float_to_int(DType::UInt8, 300.0) == 44);  // the low byte of the 32-bit conversion
  CHECK(float_to_int(DType::UInt8, std::nan("")) == 0);
  CHECK(store_value(DType::UInt8, -1.0) == 255.0);
  // Unsigned values are their numbers: division and order are unsigned ones.
  CHECK(int_binary(BinaryOp::Div, wrap_int(DType::UInt8, 240), 7) == 34);
  CHECK(int_binary(BinaryOp::GT, wrap_int(DType::UInt8, 180), 150) == 1);
  CHECK(dtype_bytes(DType::Int8) == 1);
  CHECK(parse_dtype("uint8") == DType::UInt8);
}

TEST_CASE("int16, uint16 and uint32 values wrap to their range", "[ir][scalar]") {
  CHECK(int_min(DType::Int16) == -32768);
  CHECK(int_max(DType::UInt16) == 65535);
  CHECK(int_max(DType::UInt32) == 4294967295);
  CHECK(int_min(DType::UInt32) == 0);
  CHECK(wrap_int(DType::Int16, 45000) == -20536);
  CHECK(wrap_int(DType::UInt16, -1) == 65535);
  CHECK(wrap_int(DType::UInt32, -1) == 4294967295);
  CHECK(wrap_int(DType::UInt32, int64_t{9} << 31) == int64_t{1} << 31);
  CHECK(fits(DType::UInt32, 4294967295));
  CHECK_FALSE(fits(DType::Int16, 32768));
  CHECK(float_to_int(DType::UInt32, 3e9) == 3000000000);
  CHECK(float_to_int(DType::Int16, std::nan("")) == 0);
  CHECK(store_value(DType::UInt16, 70000.0) == 4464.0);
  CHECK(dtype_bits(DType::UInt16) == 16);
  CHECK(int_type(32, false) == DType::UInt32);
  CHECK_THROWS_AS(int_type(64, false), UserError);
  CHECK(parse_dtype("uint32") == DType::UInt32);
}

TEST_CASE("bitwise calls and shifts are defined for every value and amount", "[ir][scalar]") {
  CHECK(int_call(CallOp::BitwiseAnd, DType::Int32, 12, 10) == 8);
  CHECK(int_call(CallOp::BitwiseOr, DType::Int32, 12, 10) == 14);
  CHECK(int_call(CallOp::BitwiseXor, DType::Int32, 12, 10) == 6);
  CHECK(int_call(CallOp::BitwiseNot, DType::UInt8, 5, 0) == 250);
  CHECK(int_call(CallOp::BitwiseNot, DType::Int16, 5, 0) == -6);
  CHECK(int_call(CallOp::ShiftLeft, DType::Int8, 100, 1) == -56);       // wraps at 8 bits
  CHECK(int_call(CallOp::ShiftLeft, DType::Int32, -1, 31) == kMin32);
  CHECK(int_call(CallOp::ShiftRight, DType::Int32, -100, 3) == -13);    // arithmetic
  CHECK(int_call(CallOp::ShiftRight, DType::UInt32, 4294967295, 28) == 15);  // logical
  // Amounts outside the width (LLVM poison): shifting one bit at a time's limit.
  CHECK(int_call(CallOp::ShiftLeft, DType::Int32, 7, 32) == 0);
  CHECK(int_call(CallOp::ShiftLeft, DType::Int64, 7, -1) == 0);
  CHECK(int_call(CallOp::ShiftRight, DType::Int32, -7, 40) == -1);
  CHECK(int_call(CallOp::ShiftRight, DType::Int64, kMax64, 64) == 0);
  CHECK_THROWS_AS(int_call(CallOp::Exp, DType::Int32, 1, 1), InternalError);
}

TEST_CASE("division and modulo at the edges", "[ir][scalar]") {
  CHECK(floor_div(kMin64, -1) == kMin64);
  CHECK(floor_mod(kMin64, -1) == 0);
  CHECK(floor_div(kMin64, 3) == -3074457345618258603);
  CHECK(floor_mod(kMin64, 3) == 1);
  CHECK(floor_div(kMax64, -2) == -(kMax64 / 2) - 1);
  CHECK(floor_mod(kMax64, kMin64) == -1);
  CHECK(int_binary(BinaryOp::Div, kMin64, -1) == kMin64);
  CHECK(int_binary(BinaryOp::Div, kMin64, kMin64) == 1);
  CHECK_THROWS_AS(int_binary(BinaryOp::Div, 1, 0), InternalError);
  CHECK_THROWS_AS(int_binary(BinaryOp::FloorDiv, kMin64, 0), InternalError);
  // truncmod: the dividend's sign, as C's %.
  CHECK(int_binary(BinaryOp::Mod, -7, 4) == -3);
  CHECK(int_binary(BinaryOp::Mod, 7, -4) == 3);
  CHECK(int_binary(BinaryOp::Mod, kMin64, -1) == 0);
  CHECK(float_binary(BinaryOp::Mod, -5.5, 2.0) == -1.5);
  CHECK(is_division(BinaryOp::Mod));
  CHECK_THROWS_AS(int_binary(BinaryOp::Mod, 1, 0), InternalError);
}

TEST_CASE("float to integer conversion is defined for every double", "[ir][scalar]") {
  CHECK(float_to_int(DType::Int32, 2.9) == 2);
  CHECK(float_to_int(DType::Int32, -2.9) == -2);
  CHECK(float_to_int(DType::Int32, 4294967297.0) == 1);  // truncated, then wrapped
  CHECK(float_to_int(DType::Int32, 2147483648.0) == kMin32);
  CHECK(float_to_int(DType::Int64, 9223372036854775808.0) == kMin64);  // 2^63 wraps
  CHECK(float_to_int(DType::Int64, -9223372036854775808.0) == kMin64);
  CHECK(float_to_int(DType::Int64, 18446744073709551616.0 + 4096.0) == 4096);  // 2^64 + 2^12
  CHECK(float_to_int(DType::Int64, -1e300) == 0);  // a multiple of 2^64
  CHECK(float_to_int(DType::Int64, std::nan("")) == kMin64);
  CHECK(float_to_int(DType::Int32, kInf) == kMin32);
  CHECK(float_to_int(DType::Int64, -kInf) == kMin64);
  CHECK(float_to_int(DType::Bool, std::nan("")) == 1);
  CHECK(float_to_int(DType::Bool, 0.0) == 0);
  CHECK(store_value(DType::Int64, 1e19) == static_cast<double>(float_to_int(DType::Int64, 1e19)));
}

TEST_CASE("float32 rounding beyond float32's range gives infinities", "[ir][scalar]") {
  CHECK(to_float32(1e300) == kInf);
  CHECK(to_float32(-1e300) == -kInf);
  CHECK(to_float32(3.4028235e38) == static_cast<double>(std::numeric_limits<float>::max()));
  CHECK(std::isnan(to_float32(std::nan(""))));
  CHECK(store_value(DType::Float32, 1e39) == kInf);
  CHECK(FloatImmNode::make(DType::Float32, 1e300).as<FloatImmNode>()->value == kInf);
}

TEST_CASE("hostile float constants used as integers are UserErrors", "[ir][scalar]") {
  Var i("i");
  CHECK_THROWS_AS(i + Expr(1e30), UserError);
  CHECK_THROWS_AS(i + FloatImmNode::make(DType::Float64, kInf), UserError);
  CHECK_THROWS_AS(i + FloatImmNode::make(DType::Float64, std::nan("")), UserError);
  CHECK_THROWS_AS(i + FloatImmNode::make(DType::Float64, 9223372036854775808.0), UserError);
  Var w("w", DType::Int64);
  Expr ok = w + FloatImmNode::make(DType::Float64, -9223372036854775808.0);
  CHECK(*as_const_int(ok.as<BinaryNode>()->b) == kMin64);
  // An int64 constant next to an int32 value must fit int32; it is no longer rounded through
  // a double on the way.
  CHECK_THROWS_AS(i + Expr(kMax64), UserError);
  CHECK(*as_const_int((w + Expr(kMax64)).as<BinaryNode>()->b) == kMax64);
}
