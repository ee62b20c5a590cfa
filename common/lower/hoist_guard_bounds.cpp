#include "common/lower/hoist_guard_bounds.h"

#include "common/ir/expr_functor.h"
#include "common/ir/expr_queries.h"
#include "common/ir/stmt_functor.h"
#include "common/lower/arith.h"

namespace mrd::lower {

using namespace ir;

namespace {

void conjuncts(const Expr& c, std::vector<Expr>& out) {
  if (const auto* call = c.as<CallNode>(); call && call->op == CallOp::Likely && call->args.size() == 1) {
    conjuncts(call->args[0], out);
  } else if (const auto* b = c.as<BinaryNode>(); b && b->op == BinaryOp::And) {
    conjuncts(b->a, out);
    conjuncts(b->b, out);
  } else {
    out.push_back(c);
  }
}

Expr i64(int64_t v) { return IntImmNode::make(DType::Int64, v); }
Expr to_i64(const Expr& e) {
  if (const int64_t* c = as_const_int(e)) return i64(*c);
  return CastNode::make(DType::Int64, e);
}
Expr bin(BinaryOp op, Expr a, Expr b) { return BinaryNode::make(op, std::move(a), std::move(b)); }

int64_t coefficient(const LinearForm& f, const ExprNode* v) {
  for (const auto& [atom, k] : f.terms) {
    if (atom.get() == v) return k;
  }
  return 0;
}

/// True when an atom other than `v` itself mentions `v`.
bool atom_uses(const LinearForm& f, const ExprNode* v) {
  for (const auto& [atom, k] : f.terms) {
    if (atom.get() != v && uses(atom, v)) return true;
  }
  return false;
}

constexpr int64_t kMaxConstant = int64_t{1} << 40;
constexpr int64_t kMaxFactor = int64_t{1} << 30;

/// A conjunct `a OP b` as a bound of v: `v >= bound` (lower) or `v < bound` (upper), bound in
/// int64. nullopt when it is not of the form +-v + rest OP 0 with a small rest.
struct Bound {
  bool upper = false;
  Expr value;
};
std::optional<Bound> as_bound(const Expr& c, const ExprNode* var) {
  const auto* b = c.as<BinaryNode>();
  if (!b || !(b->op == BinaryOp::LT || b->op == BinaryOp::LE || b->op == BinaryOp::GT || b->op == BinaryOp::GE) ||
      !is_index(b->a->dtype) || has_load(c)) {
    return std::nullopt;
  }
  LinearForm d = to_linear(b->a), r = to_linear(b->b);
  const int64_t k = coefficient(d, var) - coefficient(r, var);
  if ((k != 1 && k != -1) || atom_uses(d, var) || atom_uses(r, var)) return std::nullopt;
  for (int64_t x : {d.constant, r.constant}) {
    if (x <= -kMaxConstant || x >= kMaxConstant) return std::nullopt;
  }
  // At most three int32 terms with factors below 2^30 besides v: the int64 sum cannot wrap.
  if (d.terms.size() + r.terms.size() > 4) return std::nullopt;
  // rest = (a - b) without the v term.
  Expr rest = i64(d.constant - r.constant);
  for (const LinearForm* side : {&d, &r}) {
    const int64_t sign = side == &d ? 1 : -1;
    for (const auto& [atom, factor] : side->terms) {
      if (atom.get() == var) continue;
      if (factor <= -kMaxFactor || factor >= kMaxFactor || atom->dtype != DType::Int32) return std::nullopt;
      rest = bin(BinaryOp::Add, rest, bin(BinaryOp::Mul, to_i64(atom), i64(sign * factor)));
    }
  }
  // k * v + rest OP 0.
  const bool upper = (k == 1) == (b->op == BinaryOp::LT || b->op == BinaryOp::LE);
  const bool strict = b->op == BinaryOp::LT || b->op == BinaryOp::GT;
  Expr bound = k == 1 ? bin(BinaryOp::Sub, i64(0), rest) : rest;
  // upper: v < bound (strict) or v <= bound; lower: v > bound (strict) or v >= bound.
  if (upper != strict) bound = bin(BinaryOp::Add, bound, i64(1));
  return Bound{upper, bound};
}

class GuardBoundHoister : public StmtMutator {
 protected:
  Stmt visit_(const ForNode* op, const Stmt& self) override {
    Stmt body = visit(op->body);
    const auto* guard = body.as<IfThenElseNode>();
    if (op->for_kind == ForKind::Serial && guard && !guard->else_case.defined()) {
      if (Stmt s = hoist(op, guard); s.defined()) return s;
    }
    if (body.same_as(op->body)) return self;
    return ForNode::make(op->var, op->min, op->extent, op->for_kind, body, op->auto_unroll_max_step);
  }

 private:
  static Stmt hoist(const ForNode* op, const IfThenElseNode* guard) {
    std::vector<Expr> parts;
    conjuncts(guard->cond, parts);
    const Expr lo = to_i64(op->min);
    const int64_t* cmin = as_const_int(op->min);
    const Expr hi = to_i64(cmin && *cmin == 0 ? op->extent : bin(BinaryOp::Add, op->min, op->extent));
    Expr lower = lo, upper = hi, residual;
    bool moved = false;
    for (const Expr& c : parts) {
      if (std::optional<Bound> b = as_bound(c, op->var.get())) {
        if (b->upper) {
          upper = bin(BinaryOp::Min, upper, b->value);
        } else {
          lower = bin(BinaryOp::Max, lower, b->value);
        }
        moved = true;
      } else {
        residual = residual.defined() ? bin(BinaryOp::And, residual, c) : c;
      }
    }
    if (!moved) return Stmt();
    // Clamped into the loop's own range, so the casts back to the loop's type cannot wrap.
    const DType t = op->var->dtype;
    Expr min = CastNode::make(t, bin(BinaryOp::Min, lower, hi));
    Expr end = CastNode::make(t, bin(BinaryOp::Max, upper, lo));
    Stmt body = residual.defined() ? IfThenElseNode::make(residual, guard->then_case) : guard->then_case;
    return ForNode::make(op->var, min, bin(BinaryOp::Sub, end, min), op->for_kind, body, op->auto_unroll_max_step);
  }
};

}  // namespace

Stmt hoist_guard_bounds(const Stmt& s) { return GuardBoundHoister().visit(s); }

}  // namespace mrd::lower
