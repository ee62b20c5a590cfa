#include <algorithm>
#include <limits>

#include "common/ir/scalar_semantics.h"
#include "common/serialize/dag_archive.h"
#include "common/serialize/decode_error.h"
#include "common/util/error.h"

namespace mrd::serialize {

namespace {

using namespace ir;

[[noreturn]] void fail(DecodeErrc code, uint64_t id, const std::string& what) {
  throw DecodeError(code, str_cat("node ", id, ": ", what));
}

/// What node `id` became, plus what the limits need to know about it.
struct Built {
  Expr expr;
  Operation op;
  /// Longest path of references down to a leaf (through reads into the ops read).
  uint64_t depth = 0;
  uint64_t tree_size = 0;  ///< nodes when expanded as a tree, saturated
};

class Rebuilder {
 public:
  Rebuilder(const DagArchive& a, const Limits& l) : archive_(a), limits_(l) {}

  std::vector<Tensor> run() {
    const auto& nodes = archive_.nodes;
    if (nodes.size() > limits_.max_nodes) {
      throw DecodeError(DecodeErrc::TooManyNodes, str_cat(nodes.size(), " nodes"));
    }
    built_.reserve(nodes.size());
    for (uint64_t id = 0; id < nodes.size(); ++id) {
      id_ = id;
      try {
        built_.push_back(build(nodes[id]));
      } catch (const UserError& e) {
        serialize::fail(DecodeErrc::Malformed, id, e.what());
      } catch (const InternalError& e) {
        serialize::fail(DecodeErrc::Malformed, id, e.what());
      }
    }
    std::vector<Tensor> out;
    out.reserve(archive_.tensors.size());
    for (uint64_t ref : archive_.tensors) {
      if (ref >= nodes.size()) {
        throw DecodeError(DecodeErrc::DanglingId, str_cat("tensor list refers to node ", ref));
      }
      if (!built_[ref].op) {
        throw DecodeError(DecodeErrc::Malformed,
                          str_cat("tensor list refers to node ", ref, ", not an operation"));
      }
      out.emplace_back(built_[ref].op);
    }
    return out;
  }

 private:
  [[noreturn]] void fail(DecodeErrc code, const std::string& what) const {
    serialize::fail(code, id_, what);
  }

  const Built& resolve(uint64_t ref) const {
    if (ref == id_) fail(DecodeErrc::Cycle, "refers to itself");
    if (ref >= archive_.nodes.size()) fail(DecodeErrc::DanglingId, str_cat("refers to ", ref));
    if (ref > id_) fail(DecodeErrc::ForwardId, str_cat("refers to later node ", ref));
    return built_[ref];
  }

  /// An operand: an expression, and not a Reduce (only a compute body may be one).
  const Built& operand(uint64_t ref) const {
    const Built& b = resolve(ref);
    if (!b.expr.defined())
      fail(DecodeErrc::Malformed, str_cat("operand ", ref, " is not an expression"));
    if (b.expr->kind == ExprKind::Reduce) {
      fail(DecodeErrc::Malformed, "a reduction may appear only at the top of a compute body");
    }
    return b;
  }

  DType dtype_of(uint8_t code) const {
    auto t = dtype_from_code(code);
    if (!t) fail(DecodeErrc::Malformed, str_cat("unknown dtype code ", int(code)));
    return *t;
  }

  void check_name(const std::string& s) const {
    if (s.size() > limits_.max_name_length) fail(DecodeErrc::TooLarge, "name too long");
  }

  void check_rank(size_t rank) const {
    if (rank > limits_.max_rank) fail(DecodeErrc::TooLarge, str_cat("rank ", rank));
  }

  /// Checks dimensions and the element and byte counts of a tensor of `shape`.
  void check_shape(const std::vector<int64_t>& shape, DType t) const {
    check_rank(shape.size());
    uint64_t elems = 1;
    for (int64_t d : shape) {
      if (d <= 0) fail(DecodeErrc::BadShape, str_cat("dimension ", d));
    }
    for (int64_t d : shape) {
      auto ud = static_cast<uint64_t>(d);
      if (elems > std::numeric_limits<uint64_t>::max() / ud ||
          elems * ud > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        fail(DecodeErrc::TooLarge, "element count overflows int64");
      }
      elems *= ud;
    }
    if (elems > limits_.max_tensor_elements)
      fail(DecodeErrc::TooLarge, str_cat(elems, " elements"));
    if (elems > limits_.max_tensor_bytes / static_cast<uint64_t>(dtype_bytes(t))) {
      fail(DecodeErrc::TooLarge,
           str_cat(elems, " elements of ", dtype_name(t), " exceed the byte limit"));
    }
  }

  std::vector<IterVar> iter_vars(const std::vector<IterVarRecord>& recs, IterKind kind) const {
    check_rank(recs.size());
    std::vector<IterVar> out;
    for (const IterVarRecord& r : recs) {
      const Built& b = resolve(r.var);
      const VarNode* v = b.expr.defined() ? b.expr.as<VarNode>() : nullptr;
      if (!v) fail(DecodeErrc::Malformed, str_cat("axis refers to node ", r.var, ", not a var"));
      if (!is_index(v->dtype)) {
        fail(DecodeErrc::DTypeMismatch, "axis var of a type other than int32 and int64");
      }
      if (r.extent <= 0) fail(DecodeErrc::BadShape, str_cat("axis extent ", r.extent));
      if (r.min > std::numeric_limits<int64_t>::max() - r.extent) {
        fail(DecodeErrc::TooLarge, "axis range overflows int64");
      }
      out.push_back(IterVar{Var::from(b.expr), r.min, r.extent, kind});
    }
    return out;
  }

  void set_depth(Built& b, uint64_t depth) const {
    if (depth > limits_.max_expr_depth) fail(DecodeErrc::TooDeep, str_cat("depth ", depth));
    b.depth = depth;
  }

  void expect_arity(const NodeRecord& n, size_t arity) const {
    if (n.operands.size() != arity) {
      fail(DecodeErrc::WrongArity, str_cat(node_kind_name(n.kind), " with ", n.operands.size(),
                                           " operands, expected ", arity));
    }
  }

  void expect(bool ok, const std::string& what) const {
    if (!ok) fail(DecodeErrc::DTypeMismatch, what);
  }

  Built build(const NodeRecord& n) {
    if (is_op_kind(n.kind)) return build_op(n);
    std::vector<const Built*> args;
    for (uint64_t ref : n.operands) args.push_back(&operand(ref));
    Built out;
    out.expr = build_expr(n, args);
    expect(out.expr->dtype == dtype_of(n.dtype),
           str_cat("recorded type ", dtype_name(dtype_of(n.dtype)), " but the node yields ",
                   dtype_name(out.expr->dtype)));
    uint64_t depth = 0;
    uint64_t size = 1;
    for (const Built* a : args) {
      depth = std::max(depth, a->depth);
      size = std::min(size + a->tree_size, limits_.max_nodes + 1);
    }
    if (n.kind == NodeKind::TensorRead) depth = std::max(depth, built_[n.ref].depth);
    out.tree_size = size;
    set_depth(out, depth + 1);
    return out;
  }

  Expr build_expr(const NodeRecord& n, const std::vector<const Built*>& args) const {
    auto arg = [&](size_t i) { return args[i]->expr; };
    DType t = dtype_of(n.dtype);
    switch (n.kind) {
      case NodeKind::IntImm:
        expect(is_int(t) || t == DType::Bool, "integer immediate of a non-integer type");
        // fits: in the type's range; a bool is 0 or 1.
        if (!fits(t, n.int_value)) {
          fail(DecodeErrc::Malformed, str_cat(dtype_name(t), " immediate out of range"));
        }
        return IntImmNode::make(t, n.int_value);
      case NodeKind::FloatImm:
        expect(is_float(t), "float immediate of a non-float type");
        return FloatImmNode::make(t, n.float_value);
      case NodeKind::Var:
        check_name(n.name);
        return Var(n.name, t);
      case NodeKind::Binary: {
        expect_arity(n, 2);
        auto op = binary_op_from_code(n.op);
        if (!op) fail(DecodeErrc::Malformed, str_cat("unknown binary operator ", int(n.op)));
        DType a = arg(0)->dtype, b = arg(1)->dtype;
        if (*op == BinaryOp::And || *op == BinaryOp::Or) {
          expect(a == DType::Bool && b == DType::Bool, "logical operator on non-bool operands");
        } else {
          expect(a == b && a != DType::Bool, "arithmetic operands of different or bool types");
          if (*op == BinaryOp::FloorDiv || *op == BinaryOp::FloorMod) {
            expect(is_int(a), "floordiv/floormod on non-integer operands");
          }
        }
        return BinaryNode::make(*op, arg(0), arg(1));
      }
      case NodeKind::Not:
        expect_arity(n, 1);
        expect(arg(0)->dtype == DType::Bool, "! of a non-bool operand");
        return NotNode::make(arg(0));
      case NodeKind::Select:
        expect_arity(n, 3);
        expect(arg(0)->dtype == DType::Bool, "select condition not bool");
        expect(arg(1)->dtype == arg(2)->dtype, "select branches of different types");
        return SelectNode::make(arg(0), arg(1), arg(2));
      case NodeKind::Cast:
        expect_arity(n, 1);
        expect(arg(0)->dtype != t, "cast to the operand's own type");
        return CastNode::make(t, arg(0));
      case NodeKind::Call: {
        auto op = call_op_from_code(n.op);
        if (!op) fail(DecodeErrc::Malformed, str_cat("unknown call operator ", int(n.op)));
        expect_arity(n, static_cast<size_t>(call_op_arity(*op)));
        switch (*op) {
          case CallOp::IfThenElse:
            expect(arg(0)->dtype == DType::Bool, "if_then_else condition not bool");
            expect(arg(1)->dtype == arg(2)->dtype, "if_then_else branches of different types");
            break;
          case CallOp::Likely:
            expect(arg(0)->dtype == DType::Bool, "likely of a non-bool");
            break;
          case CallOp::Pow:
            expect(arg(0)->dtype == arg(1)->dtype, "pow operands of different types");
            expect(is_float(arg(0)->dtype), "pow of a non-float");
            break;
          case CallOp::ShiftLeft:
          case CallOp::ShiftRight:
            expect(arg(0)->dtype == arg(1)->dtype, str_cat(call_op_name(*op), " operands of different types"));
            expect(is_int(arg(0)->dtype), str_cat(call_op_name(*op), " of a non-integer"));
            break;
          case CallOp::BitwiseAnd:
          case CallOp::BitwiseOr:
          case CallOp::BitwiseXor:
            expect(arg(0)->dtype == arg(1)->dtype, str_cat(call_op_name(*op), " operands of different types"));
            [[fallthrough]];
          case CallOp::BitwiseNot:
            expect(is_int(arg(0)->dtype) || arg(0)->dtype == DType::Bool,
                   str_cat(call_op_name(*op), " of a float"));
            break;
          default:
            expect(is_float(arg(0)->dtype), str_cat(call_op_name(*op), " of a non-float"));
        }
        std::vector<Expr> call_args;
        for (const Built* a : args) call_args.push_back(a->expr);
        return CallNode::make(*op, std::move(call_args));
      }
      case NodeKind::TensorRead: {
        const Built& target = resolve(n.ref);
        if (!target.op) fail(DecodeErrc::Malformed, "tensor read of a node that is no operation");
        expect_arity(n, target.op->shape.size());
        std::vector<Expr> indices;
        for (const Built* a : args) {
          expect(is_index(a->expr->dtype), "tensor index of a type other than int32 and int64");
          indices.push_back(a->expr);
        }
        return TensorReadNode::make(target.op, std::move(indices));
      }
      case NodeKind::Reduce: {
        auto op = reduce_op_from_code(n.op);
        if (!op) fail(DecodeErrc::Malformed, str_cat("unknown reduce operator ", int(n.op)));
        if (n.axis.empty()) fail(DecodeErrc::WrongArity, "reduction with no axis");
        if (n.operands.size() != 1 && n.operands.size() != 2) {
          fail(DecodeErrc::WrongArity, "reduction needs a source and at most a condition");
        }
        expect(arg(0)->dtype != DType::Bool, "reduction of bool values");
        Expr cond;
        if (args.size() == 2) {
          expect(arg(1)->dtype == DType::Bool, "reduction condition not bool");
          cond = arg(1);
        }
        return ReduceNode::make(*op, arg(0), iter_vars(n.axis, IterKind::Reduce), cond);
      }
      case NodeKind::Placeholder:
      case NodeKind::Compute:
        break;
    }
    fail(DecodeErrc::UnknownNodeKind, str_cat("kind ", int(n.kind)));
  }

  Built build_op(const NodeRecord& n) {
    check_name(n.name);
    DType t = dtype_of(n.dtype);
    Built out;
    if (n.kind == NodeKind::Placeholder) {
      expect(t != DType::Bool, "placeholder of type bool");
      check_shape(n.shape, t);
      out.op = OperationNode::make_placeholder(n.name, n.shape, t);
      out.depth = 1;
      return out;
    }
    if (n.tag.size() > limits_.max_name_length) fail(DecodeErrc::TooLarge, "tag too long");
    std::vector<IterVar> axis = iter_vars(n.axis, IterKind::DataPar);
    std::vector<int64_t> shape;
    for (const IterVar& iv : axis) {
      if (iv.min != 0) fail(DecodeErrc::Malformed, "compute axis not starting at 0");
      shape.push_back(iv.extent);
    }
    expect(t != DType::Bool, "compute of type bool");
    check_shape(shape, t);
    const Built& body = resolve(n.ref);
    if (!body.expr.defined()) fail(DecodeErrc::Malformed, "compute body is not an expression");
    expect(body.expr->dtype == t, "compute body type differs from its dtype");
    expanded_ += body.tree_size + axis.size();
    if (expanded_ > limits_.max_nodes) {
      fail(DecodeErrc::TooManyNodes, "compute bodies expanded as trees exceed the node limit");
    }
    set_depth(out, body.depth + 1);
    out.op = OperationNode::make_compute(n.name, n.tag, std::move(axis), body.expr);
    if (!n.layout_free.empty()) {
      std::vector<Operation> layout_free;
      for (uint64_t id : n.layout_free) {
        const Built& p = resolve(id);
        if (!p.op || !p.op->is_placeholder()) fail(DecodeErrc::Malformed, "a layout-free input that is no placeholder");
        for (const Operation& seen : layout_free) {
          if (seen == p.op) fail(DecodeErrc::Malformed, "a layout-free input listed twice");
        }
        layout_free.push_back(p.op);
      }
      out.op = OperationNode::with_layout_free_placeholders(out.op, std::move(layout_free));
    }
    return out;
  }

  const DagArchive& archive_;
  const Limits& limits_;
  std::vector<Built> built_;
  uint64_t id_ = 0;
  uint64_t expanded_ = 0;
};

}  // namespace

uint64_t max_operands(const Limits& limits) {
  return std::max<uint64_t>(3, limits.max_rank);
}

std::vector<ir::Tensor> rebuild_dag(const DagArchive& archive, const Limits& limits) {
  return Rebuilder(archive, limits).run();
}

}  // namespace mrd::serialize
