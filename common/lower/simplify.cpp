#include "common/lower/simplify.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "common/ir/expr_functor.h"
#include "common/ir/scalar_semantics.h"
#include "common/ir/stmt_functor.h"
#include "common/util/error.h"

namespace mrd::lower {

using namespace ir;

namespace {

/// a op b on constants as the interpreters compute it, wrapped to the result type t. A
/// division by zero never reaches here: the caller rejects it first.
int64_t fold_int(BinaryOp op, DType t, int64_t a, int64_t b) {
  if (op == BinaryOp::And) return a != 0 && b != 0;
  if (op == BinaryOp::Or) return a != 0 || b != 0;
  return wrap_int(t, int_binary(op, a, b));
}

Expr bool_imm(bool v) {
  return IntImmNode::make(DType::Bool, v ? 1 : 0);
}

/// TVM's TryConstFold on float operands, which its simplifier applies first at every
/// operation: two constants fold (arithmetic in the operands' type, comparisons to bool); x + 0,
/// 0 + x, x - 0, x * 1, 1 * x and x / 1 are x; x * 0, 0 * x and 0 / x are that zero, whatever x
/// is (TVM's rule, although IEEE's x * 0 is NaN for an infinite x). What a Winograd transform's
/// constant matrix leaves after unrolling, products with 0 and 1, goes away here as in TVM.
/// Undefined when no rule applies.
Expr fold_float(BinaryOp op, DType t, const Expr& a, const Expr& b) {
  const auto* fa = a.as<FloatImmNode>();
  const auto* fb = b.as<FloatImmNode>();
  if (fa && fb) {
    switch (op) {
      case BinaryOp::Div:
        if (fb->value == 0) break;  // stays a division, as the code computes it
        [[fallthrough]];
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Mul:
      case BinaryOp::Min:
      case BinaryOp::Max:
        return FloatImmNode::make(t, store_value(t, float_binary(op, fa->value, fb->value)));
      default:
        if (is_comparison(op)) return bool_imm(float_binary(op, fa->value, fb->value) != 0);
        break;
    }
  }
  auto is = [](const FloatImmNode* c, double v) { return c && c->value == v; };
  switch (op) {
    case BinaryOp::Add:
      if (is(fa, 0)) return b;
      if (is(fb, 0)) return a;
      break;
    case BinaryOp::Sub:
      if (is(fb, 0)) return a;
      break;
    case BinaryOp::Mul:
      if (is(fa, 1)) return b;
      if (is(fa, 0)) return a;
      if (is(fb, 1)) return a;
      if (is(fb, 0)) return b;
      break;
    case BinaryOp::Div:
      if (is(fa, 0)) return a;
      if (is(fb, 1)) return a;
      break;
    default:
      break;
  }
  return Expr();
}

class ExprSimplifier : public ExprMutator {
 public:
  explicit ExprSimplifier(const VarRanges& r) : ranges_(r) {}
  Expr run(const Expr& e) { return visit(e); }

 protected:
  using ExprMutator::visit_;

  Expr visit_(const BinaryNode* op, const Expr& self) override {
    Expr a = visit(op->a), b = visit(op->b);
    const int64_t* ca = as_const_int(a);
    const int64_t* cb = as_const_int(b);
    // TVM rejects an integer division by a constant zero when it builds the expression;
    // the generated C would trap at run time and the interpreters refuse it.
    MRD_USER_CHECK(!(cb && *cb == 0 && is_division(op->op) && is_int(a->dtype)),
                   "integer ", binary_op_name(op->op), " by the constant zero");
    if (ca && cb && (is_int(a->dtype) || a->dtype == DType::Bool)) {
      return IntImmNode::make(op->dtype, fold_int(op->op, op->dtype, *ca, *cb));
    }
    if (is_float(a->dtype)) {
      if (Expr r = fold_float(op->op, op->dtype, a, b); r.defined()) return r;
    }
    // TVM's rewrite simplifier turns a float division by a constant into a multiplication by
    // its reciprocal (computed in double, then of the divisor's type): x / 768f becomes
    // x * 0.00130208f, a multiply where the division would cost ~10 cycles of latency. A
    // divisor whose reciprocal is not finite in its type (zero, a tiny denormal) stays a
    // division: there x * inf would not be x / d (TVM rewrites it all the same).
    if (const auto* divisor = b.as<FloatImmNode>();
        divisor && op->op == BinaryOp::Div && is_float(op->dtype)) {
      Expr reciprocal = FloatImmNode::make(b->dtype, 1.0 / divisor->value);
      if (std::isfinite(reciprocal.as<FloatImmNode>()->value))
        return BinaryNode::make(BinaryOp::Mul, a, reciprocal);
    }
    if (op->op == BinaryOp::And || op->op == BinaryOp::Or) {
      bool is_and = op->op == BinaryOp::And;
      if (ca) return (*ca != 0) == is_and ? b : a;
      if (cb) return (*cb != 0) == is_and ? a : b;
    }
    // Index arithmetic only: 8-bit data values keep their operations as written.
    if (is_index(op->dtype)) {
      switch (op->op) {
        case BinaryOp::Add:
        case BinaryOp::Sub:
        case BinaryOp::Mul:
          return from_linear(to_linear(BinaryNode::make(op->op, a, b)));
        case BinaryOp::FloorDiv:
        case BinaryOp::FloorMod:
          if (cb && *cb > 0) {
            if (Expr r = div_mod(op->op, a, *cb); r.defined()) return r;
            if (op->op == BinaryOp::FloorDiv) {
              if (Expr r = nested_div(a, *cb); r.defined()) return r;
            }
          }
          if (cb && *cb == 1)
            return op->op == BinaryOp::FloorDiv ? a : IntImmNode::make(a->dtype, 0);
          break;
        case BinaryOp::Min:
        case BinaryOp::Max: {
          Expr d = from_linear(to_linear(a - b));
          if (auto r = const_bound(d, ranges_)) {
            bool a_small = r->hi <= 0, b_small = r->lo >= 0;
            if (op->op == BinaryOp::Min && a_small) return a;
            if (op->op == BinaryOp::Min && b_small) return b;
            if (op->op == BinaryOp::Max && a_small) return b;
            if (op->op == BinaryOp::Max && b_small) return a;
          }
          break;
        }
        default:
          break;
      }
    }
    if (is_comparison(op->op) && is_index(a->dtype) && is_index(b->dtype)) {
      Expr d = from_linear(to_linear(a - b));
      if (auto r = const_bound(d, ranges_)) {
        std::optional<bool> v;
        switch (op->op) {
          case BinaryOp::LT:
            v = r->hi < 0 ? std::optional<bool>(true)
                          : (r->lo >= 0 ? std::optional<bool>(false) : std::nullopt);
            break;
          case BinaryOp::LE:
            v = r->hi <= 0 ? std::optional<bool>(true)
                           : (r->lo > 0 ? std::optional<bool>(false) : std::nullopt);
            break;
          case BinaryOp::GT:
            v = r->lo > 0 ? std::optional<bool>(true)
                          : (r->hi <= 0 ? std::optional<bool>(false) : std::nullopt);
            break;
          case BinaryOp::GE:
            v = r->lo >= 0 ? std::optional<bool>(true)
                           : (r->hi < 0 ? std::optional<bool>(false) : std::nullopt);
            break;
          case BinaryOp::EQ:
            if (r->lo == 0 && r->hi == 0)
              v = true;
            else if (r->lo > 0 || r->hi < 0)
              v = false;
            break;
          case BinaryOp::NE:
            if (r->lo == 0 && r->hi == 0)
              v = false;
            else if (r->lo > 0 || r->hi < 0)
              v = true;
            break;
          default:
            break;
        }
        if (v) return bool_imm(*v);
      }
    }
    if (a.same_as(op->a) && b.same_as(op->b)) return self;
    return BinaryNode::make(op->op, a, b);
  }

  /// f as d*q + r: q holds the terms whose coefficient is a multiple of d (divided by d) and
  /// floor(constant / d); r the other terms and the constant's remainder.
  static std::pair<LinearForm, LinearForm> split_multiples(const LinearForm& f, int64_t d) {
    LinearForm q, r;
    q.dtype = r.dtype = f.dtype;
    for (const auto& [atom, coeff] : f.terms) {
      if (coeff % d == 0) {
        q.terms.emplace_back(atom, coeff / d);
      } else {
        r.terms.emplace_back(atom, coeff);
      }
    }
    q.constant = floor_div(f.constant, d);
    r.constant = floor_mod(f.constant, d);
    return {q, r};
  }

  /// floordiv/floormod of a linear expression by c > 0 when the ranges decide the remainder.
  Expr div_mod(BinaryOp op, const Expr& a, int64_t c) {
    auto [q, r] = split_multiples(to_linear(a), c);
    Expr rest = from_linear(r);
    auto rb = const_bound(rest, ranges_);
    // Unbounded terms of the rest do not stop TVM's rules below: they need bounds only on the
    // part of the rest that is not a multiple of the split divisor (floordiv(x*8 + 7, 32) is
    // floordiv(x, 4) whatever x is).
    if (!rb) return split_divisor(op, q, r, c);
    int64_t lo_q = floor_div(rb->lo, c), hi_q = floor_div(rb->hi, c);
    if (lo_q != hi_q) return split_divisor(op, q, r, c);
    // The new constant must be exact and fit the type, else the ranges came from values
    // that wrap and the rewrite would not hold.
    __int128 wide = op == BinaryOp::FloorDiv
                        ? static_cast<__int128>(q.constant) + lo_q
                        : static_cast<__int128>(r.constant) - static_cast<__int128>(lo_q) * c;
    auto k = value_of_type(r.dtype, wide);
    if (!k) return Expr();
    if (op == BinaryOp::FloorDiv) {
      q.constant = *k;
      return from_linear(q);
    }
    r.constant = *k;
    return from_linear(r);
  }

  /// (h*d + l) // (m*d) is q + h // m and (h*d + l) % (m*d) is (h % m)*d + l when the ranges
  /// put l in [0, d): TVM's rules for floordiv(x*c1 + y, c2) and floormod(x*c1 + y, c2) with
  /// c2 % c1 == 0 and y // c1 == 0. `r` is what div_mod left of the dividend after taking out
  /// the multiples q of c; h*d are the terms of r whose coefficient is a multiple of d, l the
  /// others and the constant's remainder. The largest d that works is taken.
  Expr split_divisor(BinaryOp op, const LinearForm& q, const LinearForm& r, int64_t c) {
    std::vector<int64_t> divisors;
    for (const auto& term : r.terms) {
      int64_t d = std::gcd(term.second < 0 ? -term.second : term.second, c);
      if (d > 1) divisors.push_back(d);
    }
    std::sort(divisors.rbegin(), divisors.rend());
    for (int64_t d : divisors) {
      auto [high, low] = split_multiples(r, d);
      Expr l = from_linear(low);
      auto lb = const_bound(l, ranges_);
      if (!lb || lb->lo < 0 || lb->hi >= d) continue;
      // h // m or h % m, itself simplified when the ranges decide it.
      Expr hm = divided(op, from_linear(high), c / d);
      Expr sum = op == BinaryOp::FloorDiv
                     ? BinaryNode::make(BinaryOp::Add, from_linear(q), hm)
                     : BinaryNode::make(BinaryOp::Add, hm * IntImmNode::make(r.dtype, d), l);
      return from_linear(to_linear(sum));
    }
    return Expr();
  }

  /// floordiv(floordiv(x, c1) + k, c) is floordiv(x + c1*k, c1*c) for c1, c > 0, as TVM
  /// rewrites it: a fuse of three loops split again divides once instead of twice. Left alone
  /// when c1*c or c1*k does not fit the type.
  Expr nested_div(const Expr& a, int64_t c) {
    LinearForm f = to_linear(a);
    if (f.terms.size() != 1 || f.terms[0].second != 1) return Expr();
    const auto* inner = f.terms[0].first.as<BinaryNode>();
    const int64_t* c1 = inner && inner->op == BinaryOp::FloorDiv ? as_const_int(inner->b) : nullptr;
    if (!c1 || *c1 <= 0) return Expr();
    auto divisor = value_of_type(f.dtype, static_cast<__int128>(*c1) * c);
    auto shift = value_of_type(f.dtype, static_cast<__int128>(*c1) * f.constant);
    if (!divisor || !shift) return Expr();
    Expr x = from_linear(
        to_linear(BinaryNode::make(BinaryOp::Add, inner->a, IntImmNode::make(f.dtype, *shift))));
    return divided(BinaryOp::FloorDiv, x, *divisor);
  }

  /// floordiv or floormod of x by c > 0: simplified when the ranges decide it, else as written.
  Expr divided(BinaryOp op, const Expr& x, int64_t c) {
    if (Expr r = div_mod(op, x, c); r.defined()) return r;
    return BinaryNode::make(op, x, IntImmNode::make(x->dtype, c));
  }

  Expr visit_(const NotNode* op, const Expr& self) override {
    Expr a = visit(op->a);
    if (const int64_t* c = as_const_int(a)) return bool_imm(*c == 0);
    return a.same_as(op->a) ? self : NotNode::make(a);
  }

  Expr visit_(const SelectNode* op, const Expr& self) override {
    Expr c = visit(op->cond);
    if (const int64_t* v = as_const_int(c)) return visit(*v ? op->t : op->f);
    Expr t = visit(op->t), f = visit(op->f);
    if (c.same_as(op->cond) && t.same_as(op->t) && f.same_as(op->f)) return self;
    return SelectNode::make(c, t, f);
  }

  Expr visit_(const CallNode* op, const Expr& self) override {
    if (op->op == CallOp::IfThenElse) {
      Expr c = visit(op->args[0]);
      if (const int64_t* v = as_const_int(c)) return visit(*v ? op->args[1] : op->args[2]);
    }
    Expr e = ExprMutator::visit_(op, self);
    if (const CallNode* n = e.as<CallNode>()) {
      if (n->op == CallOp::Likely && as_const_int(n->args[0])) return n->args[0];
      if (is_integer_call(n->op)) return fold_integer_call(*n, e);
    }
    return e;
  }

  /// A bitwise call or shift of constants is its value, as TVM's operators fold them when the
  /// expression is built; a shift by an amount outside the type's width stays (LLVM leaves it
  /// undefined, TVM does not fold it).
  static Expr fold_integer_call(const CallNode& n, const Expr& e) {
    const int64_t* x = as_const_int(n.args[0]);
    const int64_t* y = n.args.size() > 1 ? as_const_int(n.args[1]) : x;
    if (!x || !y) return e;
    bool shift = n.op == CallOp::ShiftLeft || n.op == CallOp::ShiftRight;
    if (shift && (*y < 0 || *y >= dtype_bits(n.dtype))) return e;
    return IntImmNode::make(n.dtype, int_call(n.op, n.dtype, *x, *y));
  }

  Expr visit_(const CastNode* op, const Expr& self) override {
    Expr v = visit(op->value);
    if (const int64_t* c = as_const_int(v)) {
      if (is_int(op->dtype)) return IntImmNode::make(op->dtype, wrap_int(op->dtype, *c));
      if (is_float(op->dtype)) return FloatImmNode::make(op->dtype, static_cast<double>(*c));
    }
    return v.same_as(op->value) ? self : CastNode::make(op->dtype, v);
  }

 private:
  const VarRanges& ranges_;
};

class StmtSimplifier : public StmtMutator {
 public:
  Stmt run(const Stmt& s) { return visit(s); }

 protected:
  Expr mutate_expr(const Expr& e) override { return ExprSimplifier(ranges_).run(e); }

  Stmt visit_(const ForNode* op, const Stmt& self) override {
    Expr mn = mutate_expr(op->min), ext = mutate_expr(op->extent);
    const int64_t* cm = as_const_int(mn);
    const int64_t* ce = as_const_int(ext);
    const VarNode* v = op->var.as<VarNode>();
    if (cm && ce && *ce > 0) {
      if (auto last = checked_add(*cm, *ce - 1)) ranges_[v] = ConstRange{*cm, *last};
    }
    Stmt body = visit(op->body);
    ranges_.erase(v);
    if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return self;
    return ForNode::make(op->var, mn, ext, op->for_kind, body, op->auto_unroll_max_step);
  }

  Stmt visit_(const IfThenElseNode* op, const Stmt& self) override {
    Expr c = mutate_expr(op->cond);
    if (const int64_t* v = as_const_int(c)) {
      if (*v) return visit(op->then_case);
      return op->else_case.defined() ? visit(op->else_case) : SeqNode::make({});
    }
    return StmtMutator::visit_(op, self);
  }

  // TVM's RemoveNoOp: storing what the element already holds (a[i] = a[i], what an
  // accumulation of x * 0 folds to) does nothing.
  Stmt visit_(const StoreNode* op, const Stmt& self) override {
    Stmt s = StmtMutator::visit_(op, self);
    const auto* store = s.as<StoreNode>();
    const auto* load = store ? store->value.as<BufferLoadNode>() : nullptr;
    if (load && load->buffer.get() == store->buffer.get() &&
        structural_equal(load->indices, store->indices))
      return SeqNode::make({});
    return s;
  }

 private:
  VarRanges ranges_;
};

}  // namespace

Expr simplify_expr(const Expr& e, const VarRanges& ranges) {
  return ExprSimplifier(ranges).run(e);
}

Stmt simplify(const Stmt& s) {
  return StmtSimplifier().run(s);
}

}  // namespace mrd::lower
