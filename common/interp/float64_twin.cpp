#include "common/interp/float64_twin.h"

#include <unordered_map>

#include "common/ir/expr_functor.h"

namespace mrd::interp {

using namespace ir;

namespace {

DType widened(DType t) {
  return t == DType::Float32 ? DType::Float64 : t;
}

using OpMap = std::unordered_map<const OperationNode*, Operation>;

/// A body with its float32 constants and casts float64 and its reads of the twin's ops; the
/// other nodes take their types from their operands.
class Widen : public ExprMutator {
 public:
  explicit Widen(const OpMap& ops) : ops_(ops) {}
  Expr run(const Expr& e) { return visit(e); }

 protected:
  Expr visit_(const FloatImmNode* op, const Expr& self) override {
    return op->dtype == DType::Float32 ? FloatImmNode::make(DType::Float64, op->value) : self;
  }
  Expr visit_(const CastNode* op, const Expr&) override {
    return CastNode::make(widened(op->dtype), visit(op->value));
  }
  Expr visit_(const TensorReadNode* op, const Expr&) override {
    bool changed = false;
    std::vector<Expr> indices = visit_all(op->indices, changed);
    return TensorReadNode::make(ops_.at(op->op.get()), std::move(indices));
  }

 private:
  const OpMap& ops_;
};

}  // namespace

dag::ComputeDAG float64_twin(const dag::ComputeDAG& dag) {
  OpMap twin;
  for (const Operation& op : dag.ops()) {  // stage order: producers first
    twin[op.get()] =
        op->is_placeholder()
            ? OperationNode::make_placeholder(op->name, op->shape, widened(op->dtype))
            : OperationNode::make_compute(op->name, op->tag, op->axis, Widen(twin).run(op->body));
  }
  std::vector<Tensor> tensors;
  for (const Tensor& t : dag.tensors()) tensors.emplace_back(twin.at(t.op().get()));
  return dag::ComputeDAG(std::move(tensors));
}

std::vector<HostTensor> float64_inputs(std::vector<HostTensor> inputs) {
  for (HostTensor& t : inputs) t.dtype = widened(t.dtype);
  return inputs;
}

}  // namespace mrd::interp
