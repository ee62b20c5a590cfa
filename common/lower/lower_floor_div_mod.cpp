#include "common/lower/lower_floor_div_mod.h"

#include <optional>

#include "common/ir/expr_functor.h"
#include "common/ir/scalar_semantics.h"
#include "common/ir/stmt_functor.h"
#include "common/lower/arith.h"
#include "common/lower/simplify.h"
#include "common/util/error.h"

namespace mrd::lower {

using namespace ir;

namespace {

/// The integer v with e's type and lanes: an immediate, broadcast for a vector.
Expr constant_like(const Expr& e, int64_t v) {
  Expr c = IntImmNode::make(e->dtype, v);
  return e->lanes > 1 ? BroadcastNode::make(c, e->lanes) : c;
}

Expr bin(BinaryOp op, const Expr& a, const Expr& b) { return BinaryNode::make(op, a, b); }

/// The value of a constant divisor: an immediate, or a broadcast of one.
std::optional<int64_t> constant_value(const Expr& e) {
  if (const int64_t* v = as_const_int(e)) return *v;
  if (const auto* b = e.as<BroadcastNode>()) {
    if (const int64_t* v = as_const_int(b->value)) return *v;
  }
  return std::nullopt;
}

/// k when e is a scalar immediate 2^k (TVM's is_const_power_of_two_integer: not a broadcast).
std::optional<int> power_of_two(const Expr& e) {
  const int64_t* v = as_const_int(e);
  if (!v || *v <= 0 || (*v & (*v - 1)) != 0) return std::nullopt;
  int k = 0;
  while ((int64_t{1} << k) != *v) ++k;
  return k;
}

/// A scalar int32 or int64: TVM's `dtype == Int(32) || dtype == Int(64)`, which no vector meets.
bool scalar_index(const Expr& e) { return e->lanes == 1 && is_index(e->dtype); }

class Lowerer : public ExprMutator {
 public:
  explicit Lowerer(const VarRanges& ranges) : ranges_(ranges) {}

 protected:
  Expr visit_(const BinaryNode* op, const Expr& self) override {
    if (op->op == BinaryOp::Max) {
      if (Expr r = max_of_floor_div(op); r.defined()) return r;
    }
    if (op->op == BinaryOp::EQ || op->op == BinaryOp::NE) {
      if (Expr r = floor_mod_compared_with_zero(op); r.defined()) return r;
    }
    if (op->op != BinaryOp::FloorDiv && op->op != BinaryOp::FloorMod) return ExprMutator::visit_(op, self);
    MRD_CHECK(is_int(op->dtype), "floordiv/floormod of a ", dtype_name(op->dtype), " value");
    Expr a = visit(op->a), b = visit(op->b);
    return op->op == BinaryOp::FloorDiv ? floor_div(a, b, self) : floor_mod(a, b);
  }

 private:
  /// TVM's CanProveGreaterEqual(e, 0): an unsigned value, or a range that says so.
  bool non_negative(const Expr& e) const {
    if (is_unsigned(e->dtype)) return true;
    auto r = lane_bound(e, ranges_);
    return r && r->lo >= 0;
  }

  /// The c of TVM's offset form when a's least value m < 0 is known: truncdiv(b - 1 - m, b).
  std::optional<Expr> offset(const Expr& a, const Expr& b) const {
    auto r = lane_bound(a, ranges_);
    if (!r || r->lo >= 0 || r->lo <= -int_max(a->dtype)) return std::nullopt;
    if (std::optional<int64_t> d = constant_value(b)) {
      if (*d <= 0) return std::nullopt;  // a zero divisor is the program's error, not ours
      const __int128 c = (static_cast<__int128>(*d) - 1 - r->lo) / *d;
      // a + b*c must not wrap (TVM does not check; a narrow type would give wrong values).
      if (static_cast<__int128>(r->hi) + static_cast<__int128>(*d) * c > int_max(a->dtype)) return std::nullopt;
      return constant_like(a, static_cast<int64_t>(c));
    }
    return bin(BinaryOp::Div, bin(BinaryOp::Sub, bin(BinaryOp::Sub, b, constant_like(b, 1)), constant_like(b, r->lo)), b);
  }

  /// a + b*c, simplified as TVM's Simplify does it: a constant b*c joins a's constant part,
  /// the base of a ramp, or the value of a broadcast.
  Expr offset_numerator(const Expr& a, const Expr& b, const Expr& c) const {
    std::optional<int64_t> d = constant_value(b), k = constant_value(c);
    if (!d || !k) return simplify_expr(bin(BinaryOp::Add, a, bin(BinaryOp::Mul, b, c)), ranges_);
    const Expr shift = IntImmNode::make(a->dtype, *d * *k);
    if (const auto* r = a.as<RampNode>()) {
      return RampNode::make(simplify_expr(bin(BinaryOp::Add, r->base, shift), ranges_), r->stride, a->lanes);
    }
    if (const auto* v = a.as<BroadcastNode>()) {
      return BroadcastNode::make(simplify_expr(bin(BinaryOp::Add, v->value, shift), ranges_), a->lanes);
    }
    if (a->lanes > 1) return bin(BinaryOp::Add, a, BroadcastNode::make(shift, a->lanes));
    return simplify_expr(bin(BinaryOp::Add, a, shift), ranges_);
  }

  /// TVM's selects for a divisor of unknown sign: (b >= 0 && rmod >= 0) || (b < 0 && rmod <= 0).
  static Expr remainder_agrees(const Expr& b, const Expr& rmod) {
    Expr zero_b = constant_like(b, 0), zero_r = constant_like(rmod, 0);
    return bin(BinaryOp::Or, bin(BinaryOp::And, bin(BinaryOp::GE, b, zero_b), bin(BinaryOp::GE, rmod, zero_r)),
               bin(BinaryOp::And, bin(BinaryOp::LT, b, zero_b), bin(BinaryOp::LE, rmod, zero_r)));
  }

  Expr floor_div(const Expr& a, const Expr& b, const Expr& original) const {
    if (std::optional<int> k = power_of_two(b)) return shift_right(a, constant_like(a, *k));
    const Expr rdiv = bin(BinaryOp::Div, a, b);
    if (!non_negative(b)) {
      const Expr rmod = truncmod(a, b);
      return SelectNode::make(remainder_agrees(b, rmod), rdiv, bin(BinaryOp::Sub, rdiv, constant_like(rdiv, 1)));
    }
    if (non_negative(a) || non_negative(original)) return rdiv;
    if (std::optional<Expr> c = offset(a, b)) {
      return bin(BinaryOp::Sub, bin(BinaryOp::Div, offset_numerator(a, b, *c), b), *c);
    }
    const Expr rmod = truncmod(a, b);
    if (scalar_index(a)) {
      return bin(BinaryOp::Add, rdiv, shift_right(rmod, constant_like(rmod, dtype_bits(a->dtype) - 1)));
    }
    return SelectNode::make(bin(BinaryOp::GE, rmod, constant_like(rmod, 0)), rdiv,
                            bin(BinaryOp::Sub, rdiv, constant_like(rdiv, 1)));
  }

  Expr floor_mod(const Expr& a, const Expr& b) const {
    if (std::optional<int> k = power_of_two(b)) {
      return bitwise_and(a, constant_like(a, (int64_t{1} << *k) - 1));
    }
    const Expr rmod = truncmod(a, b);
    if (!non_negative(b)) {
      return SelectNode::make(remainder_agrees(b, rmod), rmod, bin(BinaryOp::Add, rmod, b));
    }
    if (non_negative(a)) return rmod;
    if (std::optional<Expr> c = offset(a, b)) return truncmod(offset_numerator(a, b, *c), b);
    if (scalar_index(a)) {
      return bin(BinaryOp::Add, rmod, bitwise_and(b, shift_right(rmod, constant_like(rmod, dtype_bits(a->dtype) - 1))));
    }
    return SelectNode::make(bin(BinaryOp::GE, rmod, constant_like(rmod, 0)), rmod, bin(BinaryOp::Add, rmod, b));
  }

  /// max(floordiv(x, y), c), c >= 0 an immediate, y >= 0: max(truncdiv(x, y), c).
  Expr max_of_floor_div(const BinaryNode* op) {
    const auto* div = op->a.as<BinaryNode>();
    const int64_t* c = as_const_int(op->b);
    if (!div || div->op != BinaryOp::FloorDiv || !c || *c < 0 || !non_negative(div->b)) return Expr();
    return bin(BinaryOp::Max, bin(BinaryOp::Div, visit(div->a), visit(div->b)), op->b);
  }

  /// floormod(x, y) == 0 (or != 0): truncmod(x, y) == 0, whatever the signs.
  Expr floor_mod_compared_with_zero(const BinaryNode* op) {
    const auto* mod = op->a.as<BinaryNode>();
    const int64_t* zero = as_const_int(op->b);
    if (!mod || mod->op != BinaryOp::FloorMod || !zero || *zero != 0) return Expr();
    return bin(op->op, truncmod(visit(mod->a), visit(mod->b)), op->b);
  }

  const VarRanges& ranges_;
};

/// Visits statements knowing the ranges of the enclosing loop and let variables.
class StmtLowerer : public StmtMutator {
 protected:
  Expr mutate_expr(const Expr& e) override { return Lowerer(ranges_).visit(e); }

  Stmt visit_(const ForNode* op, const Stmt& self) override {
    const VarNode* v = op->var.as<VarNode>();
    auto mn = lane_bound(op->min, ranges_), ext = lane_bound(op->extent, ranges_);
    if (mn && ext && ext->hi > 0) ranges_[v] = ConstRange{mn->lo, mn->hi + ext->hi - 1};
    Stmt out = StmtMutator::visit_(op, self);
    ranges_.erase(v);
    return out;
  }

  Stmt visit_(const LetNode* op, const Stmt& self) override {
    const VarNode* v = op->var.as<VarNode>();
    // A vector let (common_subexpr_elim makes them) too: its range covers every lane.
    if (is_int(op->value->dtype)) {
      if (auto r = lane_bound(op->value, ranges_)) ranges_[v] = *r;
    }
    Stmt out = StmtMutator::visit_(op, self);
    ranges_.erase(v);
    return out;
  }

 private:
  VarRanges ranges_;
};

}  // namespace

Stmt lower_floor_div_mod(const Stmt& s) { return StmtLowerer().visit(s); }

}  // namespace mrd::lower
