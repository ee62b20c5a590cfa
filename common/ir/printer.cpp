#include "common/ir/printer.h"

#include <iomanip>
#include <sstream>

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"

namespace mrd::ir {

namespace {

/// As TVM prints a FloatImm: the stream's default 6 significant digits, suffix `f` for
/// float32 (`0f`, `1e-05f`, `-3.40282e+38f`), no suffix for float64.
std::string float_text(double v, DType t) {
  std::ostringstream os;
  os << v;
  return os.str() + (t == DType::Float32 ? "f" : "");
}

class ExprPrinter : public ExprFunctor<void> {
 public:
  explicit ExprPrinter(std::ostream& os) : os_(os) {}

 protected:
  void visit_(const IntImmNode* op, const Expr&) override {
    if (op->dtype == DType::Bool) {
      os_ << (op->value ? "True" : "False");
    } else {
      os_ << op->value;
    }
  }
  void visit_(const FloatImmNode* op, const Expr&) override { os_ << float_text(op->value, op->dtype); }
  void visit_(const VarNode* op, const Expr&) override { os_ << op->name; }
  void visit_(const BinaryNode* op, const Expr&) override {
    switch (op->op) {
      case BinaryOp::FloorDiv:
      case BinaryOp::FloorMod:
      case BinaryOp::Min:
      case BinaryOp::Max:
        os_ << binary_op_name(op->op) << "(";
        visit(op->a);
        os_ << ", ";
        visit(op->b);
        os_ << ")";
        return;
      default:
        os_ << "(";
        visit(op->a);
        // As TVM: `(a + b)`, `(a - b)`, `(a && b)`, `(a < b)`, but `(a*b)` and `(a/b)`.
        os_ << (op->op != BinaryOp::Mul && op->op != BinaryOp::Div
                    ? str(" ", binary_op_name(op->op), " ")
                    : std::string(binary_op_name(op->op)));
        visit(op->b);
        os_ << ")";
    }
  }
  void visit_(const NotNode* op, const Expr&) override {
    os_ << "!";
    visit(op->a);
  }
  void visit_(const SelectNode* op, const Expr&) override {
    os_ << "select(";
    visit(op->cond);
    os_ << ", ";
    visit(op->t);
    os_ << ", ";
    visit(op->f);
    os_ << ")";
  }
  void visit_(const CastNode* op, const Expr&) override {
    os_ << dtype_name(op->dtype) << "(";
    visit(op->value);
    os_ << ")";
  }
  void visit_(const CallNode* op, const Expr&) override {
    os_ << "tir." << call_op_name(op->op) << "(";
    list(op->args);
    os_ << ")";
  }
  void visit_(const TensorReadNode* op, const Expr&) override {
    os_ << op->op->name << "[";
    list(op->indices);
    os_ << "]";
  }
  void visit_(const ReduceNode* op, const Expr&) override {
    os_ << "reduce_" << reduce_op_name(op->op) << "(";
    visit(op->source);
    os_ << ", axis=[";
    for (size_t i = 0; i < op->axis.size(); ++i) {
      os_ << (i ? ", " : "") << op->axis[i].var.name();
    }
    os_ << "])";
  }
  void visit_(const BufferLoadNode* op, const Expr&) override {
    os_ << op->buffer->name << "[";
    list(op->indices);
    os_ << "]";
  }
  // TVMScript's spelling: T.Ramp(base, stride, lanes), T.Broadcast(value, lanes).
  void visit_(const RampNode* op, const Expr&) override {
    os_ << "T.Ramp(";
    visit(op->base);
    os_ << ", ";
    visit(op->stride);
    os_ << ", " << op->lanes << ")";
  }
  void visit_(const BroadcastNode* op, const Expr&) override {
    os_ << "T.Broadcast(";
    visit(op->value);
    os_ << ", " << op->lanes << ")";
  }

 private:
  static std::string str(const char* a, std::string_view b, const char* c) {
    return std::string(a) + std::string(b) + c;
  }
  void list(const std::vector<Expr>& es) {
    for (size_t i = 0; i < es.size(); ++i) {
      if (i) os_ << ", ";
      visit(es[i]);
    }
  }
  std::ostream& os_;
};

class StmtPrinter : public StmtFunctor<void> {
 public:
  explicit StmtPrinter(std::ostream& os) : os_(os) {}

 protected:
  void visit_(const ForNode* op, const Stmt&) override {
    indent() << "for " << op->var.name() << " in " << for_kind_name(op->for_kind) << "("
             << to_string(op->min) << ", " << to_string(op->extent) << ")";
    if (op->auto_unroll_max_step >= 0) os_ << " [auto_unroll_max_step=" << op->auto_unroll_max_step << "]";
    os_ << ":\n";
    nested(op->body);
  }
  void visit_(const AllocateNode* op, const Stmt&) override {
    indent() << op->buffer->name << " = allocate(" << dtype_name(op->buffer->dtype) << ", [";
    for (size_t i = 0; i < op->buffer->shape.size(); ++i) {
      os_ << (i ? ", " : "") << op->buffer->shape[i];
    }
    os_ << "], " << (op->buffer->scope == MemScope::Local ? "local" : "global") << ")\n";
    visit(op->body);
  }
  void visit_(const StoreNode* op, const Stmt&) override {
    indent() << op->buffer->name << "[";
    for (size_t i = 0; i < op->indices.size(); ++i) {
      os_ << (i ? ", " : "") << to_string(op->indices[i]);
    }
    os_ << "] = " << to_string(op->value) << "\n";
  }
  void visit_(const IfThenElseNode* op, const Stmt&) override {
    indent() << "if " << to_string(op->cond) << ":\n";
    nested(op->then_case);
    if (op->else_case.defined()) {
      indent() << "else:\n";
      nested(op->else_case);
    }
  }
  void visit_(const SeqNode* op, const Stmt&) override {
    for (const Stmt& s : op->stmts) visit(s);
  }
  void visit_(const LetNode* op, const Stmt&) override {
    indent() << op->var.name() << " = " << to_string(op->value) << "\n";
    visit(op->body);
  }

 private:
  std::ostream& indent() {
    for (int i = 0; i < depth_; ++i) os_ << "  ";
    return os_;
  }
  void nested(const Stmt& s) {
    ++depth_;
    visit(s);
    --depth_;
  }
  std::ostream& os_;
  int depth_ = 0;
};

}  // namespace

std::string to_string(const Expr& e) {
  std::ostringstream os;
  if (!e.defined()) return "<undefined>";
  ExprPrinter(os).visit(e);
  return os.str();
}

std::string op_definition(const OperationNode& op) {
  std::ostringstream os;
  if (op.is_placeholder()) {
    os << op.name << " = PLACEHOLDER [";
    for (size_t i = 0; i < op.shape.size(); ++i) os << (i ? ", " : "") << op.shape[i];
    os << "]";
    return os.str();
  }
  os << op.name << "(";
  for (size_t i = 0; i < op.axis.size(); ++i) os << (i ? ", " : "") << op.axis[i].var.name();
  os << ")";
  if (const ReduceNode* r = op.body.as<ReduceNode>()) {
    // As TVM's ComputeDAG printer.
    const char* update = r->op == ReduceOp::Sum    ? " += "
                         : r->op == ReduceOp::Prod ? " *= "
                         : r->op == ReduceOp::Max  ? " max= "
                                                   : " min= ";
    os << update << to_string(r->source);
    if (r->condition.defined()) os << " where " << to_string(r->condition);
  } else {
    os << " = " << to_string(op.body);
  }
  return os.str();
}

std::string to_string(const Stmt& s) {
  std::ostringstream os;
  if (s.defined()) StmtPrinter(os).visit(s);
  return os.str();
}

std::string to_string(const PrimFunc& f) {
  std::ostringstream os;
  os << "primfunc(";
  for (size_t i = 0; i < f.params.size(); ++i) {
    const Buffer& b = f.params[i];
    os << (i ? ", " : "") << b->name << ": " << dtype_name(b->dtype) << "[";
    for (size_t d = 0; d < b->shape.size(); ++d) os << (d ? ", " : "") << b->shape[d];
    os << "]";
  }
  os << "):\n";
  std::istringstream body(to_string(f.body));
  for (std::string line; std::getline(body, line);) os << "  " << line << "\n";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << to_string(e); }
std::ostream& operator<<(std::ostream& os, const Stmt& s) { return os << to_string(s); }

}  // namespace mrd::ir
