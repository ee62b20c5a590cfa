#include "common/lower/swap_broadcast_cast.h"

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"

namespace mrd::lower {

using namespace ir;

namespace {

/// An integer type or bool: TVM's is_int() || is_uint(), bool being TVM's uint1.
bool integer_like(DType t) { return is_int(t) || t == DType::Bool; }

/// TVM's should_swap: the cast doubles the width, or widens one integer-like type to another.
bool widens(const CastNode* cast) {
  DType to = cast->dtype, from = cast->value->dtype;
  if (dtype_bits(to) == 2 * dtype_bits(from)) return true;
  if (!integer_like(to) || !integer_like(from)) return false;
  return dtype_bits(to) > dtype_bits(from);
}

/// Broadcast(Cast(T, x)) as Cast(T, Broadcast(x)) when the cast widens; else e itself.
Expr swapped(const Expr& e) {
  const auto* b = e.as<BroadcastNode>();
  const CastNode* cast = b ? b->value.as<CastNode>() : nullptr;
  if (!cast || !widens(cast)) return e;
  return CastNode::make(cast->dtype, BroadcastNode::make(cast->value, e->lanes));
}

const BinaryNode* as_mul(const Expr& e) {
  const auto* m = e.as<BinaryNode>();
  return m && m->op == BinaryOp::Mul ? m : nullptr;
}

class Swapper : public ExprMutator {
 protected:
  Expr visit_(const BinaryNode* op, const Expr& self) override {
    if (op->op != BinaryOp::Add) return ExprMutator::visit_(op, self);
    const BinaryNode* mul = as_mul(op->b);
    const bool mul_right = mul != nullptr;
    if (!mul) mul = as_mul(op->a);
    if (!mul) return ExprMutator::visit_(op, self);
    Expr lhs = swapped(mul->a), rhs = swapped(mul->b);
    if (lhs.same_as(mul->a) && rhs.same_as(mul->b)) return ExprMutator::visit_(op, self);
    Expr product = visit(BinaryNode::make(BinaryOp::Mul, lhs, rhs));
    Expr addend = visit(mul_right ? op->a : op->b);
    if (is_float(op->dtype) && mul_right) return BinaryNode::make(BinaryOp::Add, addend, product);
    return BinaryNode::make(BinaryOp::Add, product, addend);
  }
};

class StmtSwapper : public StmtMutator {
 protected:
  Expr mutate_expr(const Expr& e) override { return exprs_.visit(e); }

 private:
  Swapper exprs_;
};

}  // namespace

Stmt swap_broadcast_cast(const Stmt& s) { return StmtSwapper().visit(s); }

}  // namespace mrd::lower
