#include "common/ir/operation.h"

#include <unordered_set>

#include "common/ir/expr_functor.h"
#include "common/util/error.h"

namespace mrd::ir {

namespace {

void check_shape(const std::string& name, const std::vector<int64_t>& shape) {
  for (int64_t d : shape) {
    MRD_USER_CHECK(d > 0, "tensor ", name, " has a non-positive dimension ", d);
  }
}

/// Fails if a Reduce appears anywhere but at the top of a compute body.
class NestedReduceCheck : public ExprVisitor {
 public:
  explicit NestedReduceCheck(const std::string& op_name) : op_name_(op_name) {}

 protected:
  void visit_(const ReduceNode*, const Expr&) override {
    throw UserError(str_cat("compute ", op_name_, ": a reduction may appear only at the top "
                            "of the body"));
  }

 private:
  const std::string& op_name_;
};

}  // namespace

Operation OperationNode::make_placeholder(std::string name, std::vector<int64_t> shape,
                                          DType dtype) {
  check_shape(name, shape);
  MRD_USER_CHECK(dtype != DType::Bool, "placeholder ", name, " of type bool");
  auto op = std::make_shared<OperationNode>();
  op->kind = OpKind::Placeholder;
  op->name = std::move(name);
  op->dtype = dtype;
  op->shape = std::move(shape);
  return op;
}

Operation OperationNode::make_compute(std::string name, std::string tag, std::vector<IterVar> axis,
                                      Expr body) {
  MRD_USER_CHECK(body.defined(), "compute ", name, " has no body");
  MRD_USER_CHECK(body->dtype != DType::Bool, "compute ", name, " yields bool values");
  auto op = std::make_shared<OperationNode>();
  op->kind = OpKind::Compute;
  op->dtype = body->dtype;
  for (const IterVar& iv : axis) {
    MRD_USER_CHECK(iv.kind == IterKind::DataPar && iv.min == 0,
                   "compute ", name, ": axis ", iv.var.name(), " must start at 0");
    op->shape.push_back(iv.extent);
  }
  check_shape(name, op->shape);
  if (const ReduceNode* r = body.as<ReduceNode>()) {
    op->reduce_axis = r->axis;
    NestedReduceCheck check(name);
    check.visit(r->source);
    if (r->condition.defined()) check.visit(r->condition);
  } else {
    NestedReduceCheck(name).visit(body);
  }
  op->name = std::move(name);
  op->tag = std::move(tag);
  op->axis = std::move(axis);
  op->body = std::move(body);
  return op;
}

Operation OperationNode::with_layout_free_placeholders(const Operation& op, std::vector<Operation> placeholders) {
  MRD_CHECK(op && !op->is_placeholder(), "layout-free placeholders on a placeholder");
  auto copy = std::make_shared<OperationNode>(*op);
  copy->layout_free_placeholders = std::move(placeholders);
  return copy;
}

int64_t OperationNode::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<Operation> input_ops(const OperationNode& op) {
  std::vector<Operation> out;
  if (op.is_placeholder()) return out;
  std::unordered_set<const OperationNode*> seen;
  post_order_visit(op.body, [&](const Expr& e) {
    if (const TensorReadNode* r = e.as<TensorReadNode>()) {
      if (seen.insert(r->op.get()).second) out.push_back(r->op);
    }
  });
  return out;
}

Expr Tensor::operator()(std::vector<Expr> indices) const {
  return TensorReadNode::make(op_, std::move(indices));
}

}  // namespace mrd::ir
