#include "common/interp/scalar_ops.h"

#include <cmath>

#include "common/util/error.h"

namespace mrd::interp {

using ir::BinaryOp;
using ir::CallOp;
using ir::DType;

int64_t wrap_int(DType t, int64_t v) {
  if (t == DType::Int32) return static_cast<int32_t>(static_cast<uint32_t>(v));
  if (t == DType::Bool) return v != 0;
  return v;
}

double store_value(DType t, double v) {
  switch (t) {
    case DType::Float32:
      return static_cast<double>(static_cast<float>(v));
    case DType::Float64:
      return v;
    case DType::Bool:
      return v != 0 ? 1.0 : 0.0;
    case DType::Int32:
    case DType::Int64:
      return static_cast<double>(wrap_int(t, static_cast<int64_t>(v)));
  }
  return v;
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

bool is_division(BinaryOp op) {
  return op == BinaryOp::Div || op == BinaryOp::FloorDiv || op == BinaryOp::FloorMod;
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
  throw InternalError(str_cat("operator ", ir::binary_op_name(op), " has no ", kind, " form"));
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
    default:
      return by_order(op, x, y, "float");
  }
}

int64_t int_binary(BinaryOp op, int64_t x, int64_t y) {
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  switch (op) {
    case BinaryOp::Add:
      return static_cast<int64_t>(u(x) + u(y));
    case BinaryOp::Sub:
      return static_cast<int64_t>(u(x) - u(y));
    case BinaryOp::Mul:
      return static_cast<int64_t>(u(x) * u(y));
    case BinaryOp::Div:
    case BinaryOp::FloorDiv:
    case BinaryOp::FloorMod:
      MRD_CHECK(y != 0, "integer ", ir::binary_op_name(op), " by zero");
      if (y == -1) {  // avoids the overflow of INT64_MIN / -1
        return op == BinaryOp::FloorMod ? 0 : static_cast<int64_t>(u(0) - u(x));
      }
      if (op == BinaryOp::Div) return x / y;
      if (op == BinaryOp::FloorDiv) return floor_div(x, y);
      return x - floor_div(x, y) * y;
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
    case CallOp::IfThenElse:
    case CallOp::Likely:
      break;
  }
  throw InternalError(str_cat("call ", ir::call_op_name(op), " is not a math intrinsic"));
}

BinaryOp combine_op(ir::ReduceOp op) {
  switch (op) {
    case ir::ReduceOp::Sum:
      return BinaryOp::Add;
    case ir::ReduceOp::Max:
      return BinaryOp::Max;
    case ir::ReduceOp::Min:
      return BinaryOp::Min;
  }
  throw InternalError("unknown reduction operator");
}

}  // namespace mrd::interp
