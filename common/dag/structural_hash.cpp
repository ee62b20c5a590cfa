#include "common/dag/structural_hash.h"

#include <cstring>
#include <unordered_map>

#include "common/ir/expr_functor.h"
#include "common/util/error.h"
#include "common/util/md5.h"

namespace mrd::dag {

namespace {

using namespace ir;

/// Writes ops in post-DFS order from the tensor list, each once, numbering ops and bound
/// variables in order of appearance. Strings are length-prefixed so that no two different
/// DAGs share a text.
class Canonicalizer : public ExprFunctor<void> {
 public:
  std::string run(const std::vector<Tensor>& tensors) {
    for (const Tensor& t : tensors) {
      MRD_USER_CHECK(t.defined(), "undefined tensor in a workload");
      emit_op(t.op());
    }
    out_ += "tensors";
    for (const Tensor& t : tensors) out_ += " " + std::to_string(op_ids_.at(t.op().get()));
    out_ += "\n";
    return std::move(out_);
  }

 protected:
  void visit_(const IntImmNode* op, const Expr&) override {
    out_ += "(int ";
    out_ += dtype_name(op->dtype);
    out_ += " " + std::to_string(op->value) + ")";
  }
  void visit_(const FloatImmNode* op, const Expr&) override {
    uint64_t bits;
    std::memcpy(&bits, &op->value, sizeof bits);
    out_ += str_cat("(float ", dtype_name(op->dtype), " ", std::hex, bits, ")");
  }
  void visit_(const VarNode* op, const Expr&) override {
    auto it = var_ids_.find(op);
    if (it == var_ids_.end()) {
      // A variable bound nowhere in the DAG: numbered at its first appearance.
      int id = next_var_++;
      var_ids_[op] = id;
      out_ += str_cat("(free ", id, " ", dtype_name(op->dtype), " ", quoted(op->name), ")");
      return;
    }
    out_ += str_cat("(var ", it->second, ")");
  }
  void visit_(const BinaryNode* op, const Expr& e) override {
    out_ += str_cat("(", binary_op_name(op->op), " ", dtype_name(op->dtype), " ");
    visit(op->a);
    out_ += " ";
    visit(op->b);
    out_ += ")";
  }
  void visit_(const NotNode* op, const Expr&) override {
    out_ += "(! ";
    visit(op->a);
    out_ += ")";
  }
  void visit_(const SelectNode* op, const Expr&) override {
    out_ += str_cat("(select ", dtype_name(op->dtype), " ");
    visit(op->cond);
    out_ += " ";
    visit(op->t);
    out_ += " ";
    visit(op->f);
    out_ += ")";
  }
  void visit_(const CastNode* op, const Expr&) override {
    out_ += str_cat("(cast ", dtype_name(op->dtype), " ");
    visit(op->value);
    out_ += ")";
  }
  void visit_(const CallNode* op, const Expr&) override {
    out_ += str_cat("(call ", call_op_name(op->op), " ", dtype_name(op->dtype));
    for (const Expr& a : op->args) {
      out_ += " ";
      visit(a);
    }
    out_ += ")";
  }
  void visit_(const TensorReadNode* op, const Expr&) override {
    auto it = op_ids_.find(op->op.get());
    MRD_CHECK(it != op_ids_.end(), "read of ", op->op->name, " before its definition");
    out_ += str_cat("(read ", it->second);
    for (const Expr& i : op->indices) {
      out_ += " ";
      visit(i);
    }
    out_ += ")";
  }
  void visit_(const ReduceNode* op, const Expr&) override {
    out_ += str_cat("(reduce ", reduce_op_name(op->op), " ", dtype_name(op->dtype), " [");
    for (const IterVar& iv : op->axis) out_ += " " + iter_var(iv, false);
    out_ += " ] ";
    visit(op->source);
    out_ += " ";
    if (op->condition.defined()) {
      visit(op->condition);
    } else {
      out_ += "(always)";
    }
    out_ += ")";
  }
  void visit_(const BufferLoadNode* op, const Expr&) override {
    throw UserError("a workload DAG may not contain buffer loads");
  }
  void visit_(const RampNode* op, const Expr&) override {
    throw UserError("a workload DAG may not contain vector ramps");
  }
  void visit_(const BroadcastNode* op, const Expr&) override {
    throw UserError("a workload DAG may not contain vector broadcasts");
  }

 private:
  static std::string quoted(const std::string& s) { return str_cat(s.size(), ":", s); }

  /// `bind` gives the variable a new number (its declaration); otherwise it is a use.
  std::string iter_var(const IterVar& iv, bool bind) {
    const VarNode* v = static_cast<const VarNode*>(iv.var.get());
    if (bind || !var_ids_.count(v)) {
      var_ids_[v] = next_var_++;
      return str_cat("(iv ", var_ids_[v], " ", dtype_name(v->dtype), " ", quoted(v->name), " ",
                     iv.min, " ", iv.extent, " ", iv.kind == IterKind::Reduce ? "r" : "s", ")");
    }
    return str_cat("(iv-use ", var_ids_[v], " ", iv.min, " ", iv.extent, ")");
  }

  /// Emits `root` after everything it reads, depth first with an explicit stack (a long
  /// chain of ops must not exhaust the call stack).
  void emit_op(const Operation& root) {
    if (op_ids_.count(root.get())) return;
    struct Frame {
      Operation op;
      std::vector<Operation> inputs;
      size_t next = 0;
    };
    std::vector<Frame> stack;
    stack.push_back({root, input_ops(*root)});
    in_progress_[root.get()] = true;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.inputs.size()) {
        Operation in = top.inputs[top.next++];
        if (op_ids_.count(in.get())) continue;
        MRD_USER_CHECK(!in_progress_.count(in.get()), "the workload DAG has a cycle through ",
                       in->name);
        in_progress_[in.get()] = true;
        std::vector<Operation> inputs = input_ops(*in);
        stack.push_back({std::move(in), std::move(inputs)});
        continue;
      }
      Operation op = std::move(top.op);
      stack.pop_back();
      in_progress_.erase(op.get());
      write_op(op);
    }
  }

  void write_op(const Operation& op) {
    int id = next_op_++;
    op_ids_[op.get()] = id;
    out_ += str_cat("op ", id, " ", op->is_placeholder() ? "placeholder" : "compute", " ",
                    quoted(op->name), " ", quoted(op->tag), " ", dtype_name(op->dtype), " [");
    for (int64_t d : op->shape) out_ += str_cat(" ", d);
    out_ += " ]";
    if (!op->is_placeholder()) {
      out_ += " axis [";
      for (const IterVar& iv : op->axis) out_ += " " + iter_var(iv, true);
      out_ += " ] reduce_axis [";
      for (const IterVar& iv : op->reduce_axis) out_ += " " + iter_var(iv, true);
      out_ += " ] body ";
      visit(op->body);
    }
    out_ += "\n";
  }

  std::string out_;
  std::unordered_map<const OperationNode*, int> op_ids_;
  std::unordered_map<const OperationNode*, bool> in_progress_;
  std::unordered_map<const VarNode*, int> var_ids_;
  int next_op_ = 0;
  int next_var_ = 0;
};

}  // namespace

std::string canonical_form(const std::vector<Tensor>& tensors) {
  return Canonicalizer().run(tensors);
}

bool structural_equal(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  return canonical_form(a) == canonical_form(b);
}

std::string structural_hash(const std::vector<Tensor>& tensors) {
  return md5_hex(canonical_form(tensors));
}

}  // namespace mrd::dag
