// Operations and tensors of the tensor language (TVM's te): a placeholder is an input; a
// compute op defines every element of its output by an expression over its axes. Each op
// has exactly one output, so a Tensor is a handle to its operation, and two tensors are the
// same tensor only if they are the same operation object.
#pragma once

#include <string>
#include <vector>

#include "common/ir/expr.h"

namespace mrd::ir {

enum class OpKind : uint8_t { Placeholder, Compute };

struct OperationNode {
  OpKind kind;
  std::string name;
  /// Free-form tag as in TVM (e.g. "elemwise", "injective"); never emitted as code.
  std::string tag;
  DType dtype;
  std::vector<int64_t> shape;
  /// Compute only: one data-parallel axis per output dimension, with extent = shape[d].
  std::vector<IterVar> axis;
  /// Compute only: the reduction axes of the body (empty unless the body is a Reduce).
  std::vector<IterVar> reduce_axis;
  /// Compute only: the value of element (axis...). A Reduce may appear only at the top.
  Expr body;
  /// Compute only: inputs whose layout the schedule may choose (TVM's
  /// `layout_free_placeholders` attribute, set by topi's dense and batch_matmul): with
  /// layout_rewrite_option 1 they are re-laid out for the stage's tiling (rewrite_layout.h).
  /// Known for built-in workloads; not carried by DAG archives.
  std::vector<Operation> layout_free_placeholders;

  static Operation make_placeholder(std::string name, std::vector<int64_t> shape, DType dtype);
  /// Checks that axis matches shape, that the body's type is dtype and that a Reduce appears
  /// only at the top; reduce_axis is taken from the body.
  static Operation make_compute(std::string name, std::string tag, std::vector<IterVar> axis,
                                Expr body);

  /// A copy of compute op `op` with the given layout-free placeholders (a new operation).
  static Operation with_layout_free_placeholders(const Operation& op, std::vector<Operation> placeholders);

  bool is_placeholder() const { return kind == OpKind::Placeholder; }
  int64_t num_elements() const;
};

/// The operations `op` reads, in TVM's InputTensors order: first appearance in a post-order
/// walk of the body, each once.
std::vector<Operation> input_ops(const OperationNode& op);

/// A handle to a single-output operation; calling it builds a read.
class Tensor {
 public:
  Tensor() = default;
  Tensor(Operation op) : op_(std::move(op)) {}

  const Operation& op() const { return op_; }
  const OperationNode* operator->() const { return op_.get(); }
  bool defined() const { return op_ != nullptr; }
  bool same_as(const Tensor& other) const { return op_ == other.op_; }
  size_t ndim() const { return op_->shape.size(); }

  Expr operator()(std::vector<Expr> indices) const;
  template <typename... Idx>
  Expr operator()(Idx... idx) const {
    return (*this)(std::vector<Expr>{Expr(idx)...});
  }

 private:
  Operation op_;
};

}  // namespace mrd::ir
