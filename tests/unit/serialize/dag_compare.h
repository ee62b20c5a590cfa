// Structural comparison of two tensor lists, node for node: it pairs the nodes of both sides
// as it walks and requires the pairing to be one-to-one, so it also checks that the same
// nodes are shared on both sides (a var used twice, a tensor read by two ops).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "common/ir/operation.h"
#include "common/util/error.h"

namespace mrd::serialize::testing {

class DagIsomorphism {
 public:
  /// Empty if equal, else where they first differ.
  std::string compare(const std::vector<ir::Tensor>& a, const std::vector<ir::Tensor>& b) {
    if (a.size() != b.size()) return "tensor counts differ";
    for (size_t i = 0; i < a.size(); ++i) {
      if (!ops(a[i].op(), b[i].op())) return str_cat("tensor ", i, ": ", why_);
    }
    return "";
  }

 private:
  bool fail(const std::string& w) {
    why_ = w;
    return false;
  }

  /// Pairs a with b; returns 1 if newly paired, 0 if already paired together, -1 if either is
  /// paired with another node.
  int pair(const void* a, const void* b) {
    auto f = fwd_.find(a);
    auto r = back_.find(b);
    if (f != fwd_.end() || r != back_.end()) {
      return f != fwd_.end() && f->second == b ? 0 : -1;
    }
    fwd_[a] = b;
    back_[b] = a;
    return 1;
  }

  bool ops(const ir::Operation& a, const ir::Operation& b) {
    int p = pair(a.get(), b.get());
    if (p < 0) return fail(str_cat("sharing of op ", a->name, " differs"));
    if (p == 0) return true;
    if (a->kind != b->kind || a->name != b->name || a->tag != b->tag || a->dtype != b->dtype ||
        a->shape != b->shape) {
      return fail(str_cat("op ", a->name, " differs"));
    }
    if (a->layout_free_placeholders.size() != b->layout_free_placeholders.size()) {
      return fail(str_cat("layout-free inputs of op ", a->name, " differ"));
    }
    for (size_t i = 0; i < a->layout_free_placeholders.size(); ++i) {
      if (!ops(a->layout_free_placeholders[i], b->layout_free_placeholders[i])) return false;
    }
    return iter_vars(a->axis, b->axis) && iter_vars(a->reduce_axis, b->reduce_axis) &&
           expr(a->body, b->body);
  }

  bool iter_vars(const std::vector<ir::IterVar>& a, const std::vector<ir::IterVar>& b) {
    if (a.size() != b.size()) return fail("axis counts differ");
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].min != b[i].min || a[i].extent != b[i].extent || a[i].kind != b[i].kind) {
        return fail("axis ranges differ");
      }
      if (!expr(a[i].var, b[i].var)) return false;
    }
    return true;
  }

  bool exprs(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b) {
    if (a.size() != b.size()) return fail("operand counts differ");
    for (size_t i = 0; i < a.size(); ++i) {
      if (!expr(a[i], b[i])) return false;
    }
    return true;
  }

  bool expr(const ir::Expr& a, const ir::Expr& b) {
    using namespace ir;
    if (!a.defined() || !b.defined()) return a.defined() == b.defined() || fail("definedness");
    int p = pair(a.get(), b.get());
    if (p < 0) return fail("sharing of an expression differs");
    if (p == 0) return true;
    if (a->kind != b->kind || a->dtype != b->dtype) return fail("expression kinds differ");
    switch (a->kind) {
      case ExprKind::IntImm:
        return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value || fail("int value");
      case ExprKind::FloatImm:
        return a.as<FloatImmNode>()->value == b.as<FloatImmNode>()->value || fail("float value");
      case ExprKind::Var:
        return a.as<VarNode>()->name == b.as<VarNode>()->name || fail("var name");
      case ExprKind::Binary: {
        auto x = a.as<BinaryNode>(), y = b.as<BinaryNode>();
        return (x->op == y->op || fail("binary op")) && expr(x->a, y->a) && expr(x->b, y->b);
      }
      case ExprKind::Not:
        return expr(a.as<NotNode>()->a, b.as<NotNode>()->a);
      case ExprKind::Select: {
        auto x = a.as<SelectNode>(), y = b.as<SelectNode>();
        return expr(x->cond, y->cond) && expr(x->t, y->t) && expr(x->f, y->f);
      }
      case ExprKind::Cast:
        return expr(a.as<CastNode>()->value, b.as<CastNode>()->value);
      case ExprKind::Call: {
        auto x = a.as<CallNode>(), y = b.as<CallNode>();
        return (x->op == y->op || fail("call op")) && exprs(x->args, y->args);
      }
      case ExprKind::TensorRead: {
        auto x = a.as<TensorReadNode>(), y = b.as<TensorReadNode>();
        return ops(x->op, y->op) && exprs(x->indices, y->indices);
      }
      case ExprKind::Reduce: {
        auto x = a.as<ReduceNode>(), y = b.as<ReduceNode>();
        return (x->op == y->op || fail("reduce op")) && iter_vars(x->axis, y->axis) &&
               expr(x->source, y->source) && expr(x->condition, y->condition);
      }
      case ExprKind::BufferLoad:
      case ExprKind::Ramp:
      case ExprKind::Broadcast:
        return fail("a buffer load or vector node in a DAG");
    }
    return fail("unknown kind");
  }

  std::unordered_map<const void*, const void*> fwd_, back_;
  std::string why_;
};

inline std::string dag_difference(const std::vector<ir::Tensor>& a,
                                  const std::vector<ir::Tensor>& b) {
  return DagIsomorphism().compare(a, b);
}

}  // namespace mrd::serialize::testing
