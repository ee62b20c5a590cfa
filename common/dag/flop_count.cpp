#include "common/dag/flop_count.h"

#include <algorithm>

#include "common/ir/expr_functor.h"

namespace mrd::dag {

namespace {

using namespace ir;

/// TVM's DataType code: bool is a 1-bit unsigned integer, so it has a class of its own.
enum class TypeCode { Int, UInt, Float };

TypeCode type_code(DType t) {
  if (is_float(t)) return TypeCode::Float;
  return t == DType::Bool || is_unsigned(t) ? TypeCode::UInt : TypeCode::Int;
}

class FlopEstimator : public ExprFunctor<double> {
 public:
  double estimate(const ComputeDAG& dag) {
    double total = 0;
    for (const Operation& op : dag.ops()) {
      if (op->is_placeholder()) continue;
      double elements = 1;
      for (const IterVar& iv : op->axis) elements *= static_cast<double>(iv.extent);
      out_code_ = type_code(op->dtype);
      total += elements * visit(op->body);
    }
    return failed_ ? -1 : total;
  }

 protected:
  double visit_(const IntImmNode*, const Expr&) override { return 0; }
  double visit_(const FloatImmNode*, const Expr&) override { return 0; }
  double visit_(const VarNode*, const Expr&) override { return 0; }
  double visit_(const TensorReadNode*, const Expr&) override { return 0; }
  double visit_(const CastNode* op, const Expr&) override { return visit(op->value); }
  double visit_(const BinaryNode* op, const Expr&) override {
    bool counted = type_code(op->a->dtype) == out_code_ || type_code(op->b->dtype) == out_code_;
    return (counted ? 1.0 : 0.0) + visit(op->a) + visit(op->b);
  }
  double visit_(const NotNode* op, const Expr&) override {
    return (type_code(op->dtype) == out_code_ ? 1.0 : 0.0) + visit(op->a);
  }
  double visit_(const SelectNode* op, const Expr&) override {
    return visit(op->cond) + std::max(visit(op->t), visit(op->f));
  }
  double visit_(const CallNode* op, const Expr&) override {
    double sum = 0;
    for (const Expr& a : op->args) sum += visit(a);
    return sum;
  }
  double visit_(const ReduceNode* op, const Expr&) override {
    double iterations = 1;
    for (const IterVar& iv : op->axis) iterations *= static_cast<double>(iv.extent);
    // TVM visits the combiner's result, e.g. x + y over two variables of the reduced type:
    // one operation of the output's type class.
    double combiner = type_code(op->dtype) == out_code_ ? 1.0 : 0.0;
    return iterations * (combiner + visit(op->source));
  }
  double visit_(const BufferLoadNode*, const Expr&) override {
    failed_ = true;
    return -1;
  }
  double visit_(const RampNode*, const Expr&) override {
    failed_ = true;
    return -1;
  }
  double visit_(const BroadcastNode*, const Expr&) override {
    failed_ = true;
    return -1;
  }

 private:
  TypeCode out_code_ = TypeCode::Float;
  bool failed_ = false;
};

}  // namespace

double flop_count(const ComputeDAG& dag) {
  return FlopEstimator().estimate(dag);
}

}  // namespace mrd::dag
