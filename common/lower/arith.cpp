#include "common/lower/arith.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "common/ir/expr_queries.h"
#include "common/ir/operation.h"
#include "common/ir/scalar_semantics.h"
#include "common/util/error.h"

namespace mrd::lower {

using namespace ir;

namespace {

/// [lo, hi] when both ends are values of type t: a wider range means the expression may wrap,
/// and its exact range says nothing about the wrapped values.
std::optional<ConstRange> make_range(DType t, __int128 lo, __int128 hi) {
  auto l = value_of_type(t, lo), h = value_of_type(t, hi);
  if (!l || !h) return std::nullopt;
  return ConstRange{*l, *h};
}

std::optional<ConstRange> bound_of(const Expr& e, const VarRanges& ranges, bool every_lane);

/// lane_bound of a ramp: base + i * stride for i in [0, lanes), the union of the first and the
/// last lane.
std::optional<ConstRange> ramp_bound(const RampNode* r, const VarRanges& ranges) {
  auto first = bound_of(r->base, ranges, true);
  auto stride = bound_of(r->stride, ranges, true);
  if (!first || !stride) return std::nullopt;
  const __int128 n = r->lanes - 1;
  __int128 c[4] = {first->lo, first->hi, first->lo + n * stride->lo, first->hi + n * stride->hi};
  return make_range(r->dtype, *std::min_element(c, c + 4), *std::max_element(c, c + 4));
}

/// lane_bound of the shift and the mask that lowered floor divisions become.
std::optional<ConstRange> call_bound(const CallNode* call, const VarRanges& ranges) {
  if (call->args.size() != 2) return std::nullopt;
  auto x = bound_of(call->args[0], ranges, true), y = bound_of(call->args[1], ranges, true);
  if (!y || y->lo != y->hi || !is_int(call->dtype) || is_unsigned(call->dtype)) return std::nullopt;
  const int64_t k = y->lo;
  // A mask by k >= 0 is in [0, k] whatever the value.
  if (call->op == CallOp::BitwiseAnd && k >= 0) {
    return x && x->lo >= 0 ? ConstRange{0, std::min(x->hi, k)} : ConstRange{0, k};
  }
  if (x && call->op == CallOp::ShiftRight && k >= 0 && k < 63) return ConstRange{x->lo >> k, x->hi >> k};
  return std::nullopt;
}

/// lane_bound of a truncating division or remainder of x by c > 0.
ConstRange trunc_div_mod_bound(BinaryOp op, ConstRange x, int64_t c) {
  if (op == BinaryOp::Div) return ConstRange{x.lo / c, x.hi / c};  // monotonic for c > 0
  if (x.lo >= 0) return x.hi < c ? x : ConstRange{0, c - 1};
  return ConstRange{std::max(x.lo, -(c - 1)), std::min(std::max<int64_t>(x.hi, 0), c - 1)};
}

/// const_bound, and with every_lane the cases of lane_bound: vectors, truncating division and
/// remainder, shift and mask, and what holds whatever a value is.
std::optional<ConstRange> bound_of(const Expr& e, const VarRanges& ranges, bool every_lane) {
  switch (e->kind) {
    case ExprKind::IntImm: {
      int64_t v = e.as<IntImmNode>()->value;
      return ConstRange{v, v};
    }
    case ExprKind::Var: {
      auto it = ranges.find(e.as<VarNode>());
      if (it == ranges.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::Cast: {
      const CastNode* c = e.as<CastNode>();
      if (!is_int(c->dtype) || !is_int(c->value->dtype)) return std::nullopt;
      if (auto r = bound_of(c->value, ranges, every_lane)) return make_range(c->dtype, r->lo, r->hi);
      // Whatever the value, a widening integer cast stays within the source type's range.
      const DType from = c->value->dtype;
      if (!every_lane || dtype_bits(from) >= 64) return std::nullopt;
      return make_range(c->dtype, int_min(from), int_max(from));
    }
    case ExprKind::Select: {
      const SelectNode* s = e.as<SelectNode>();
      auto a = bound_of(s->t, ranges, every_lane), b = bound_of(s->f, ranges, every_lane);
      if (!a || !b) return std::nullopt;
      return ConstRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    case ExprKind::Ramp:
      return every_lane ? ramp_bound(e.as<RampNode>(), ranges) : std::nullopt;
    case ExprKind::Broadcast:
      return every_lane ? bound_of(e.as<BroadcastNode>()->value, ranges, true) : std::nullopt;
    case ExprKind::Call:
      return every_lane ? call_bound(e.as<CallNode>(), ranges) : std::nullopt;
    case ExprKind::Binary:
      break;
    default:
      return std::nullopt;
  }
  const BinaryNode* b = e.as<BinaryNode>();
  if (!is_int(b->dtype)) return std::nullopt;
  auto x = bound_of(b->a, ranges, every_lane);
  auto y = bound_of(b->b, ranges, every_lane);
  const bool positive_constant = y && y->lo == y->hi && y->lo > 0;
  // Whatever the dividend, a floormod by a positive constant c is in [0, c - 1].
  if (every_lane && !x && positive_constant && b->op == BinaryOp::FloorMod) return ConstRange{0, y->lo - 1};
  if (!x || !y) return std::nullopt;
  __int128 xl = x->lo, xh = x->hi, yl = y->lo, yh = y->hi;
  DType t = b->dtype;
  switch (b->op) {
    case BinaryOp::Add:
      return make_range(t, xl + yl, xh + yh);
    case BinaryOp::Sub:
      return make_range(t, xl - yh, xh - yl);
    case BinaryOp::Mul: {
      __int128 c[4] = {xl * yl, xl * yh, xh * yl, xh * yh};
      return make_range(t, *std::min_element(c, c + 4), *std::max_element(c, c + 4));
    }
    case BinaryOp::FloorDiv:
      if (yl != yh || yl <= 0) return std::nullopt;
      return ConstRange{floor_div(x->lo, y->lo), floor_div(x->hi, y->lo)};
    case BinaryOp::FloorMod: {
      if (yl != yh || yl <= 0) return std::nullopt;
      int64_t q = floor_div(x->lo, y->lo);
      if (q == floor_div(x->hi, y->lo)) {
        return ConstRange{floor_mod(x->lo, y->lo), floor_mod(x->hi, y->lo)};
      }
      return ConstRange{0, y->lo - 1};
    }
    case BinaryOp::Min:
      return ConstRange{std::min(x->lo, y->lo), std::min(x->hi, y->hi)};
    case BinaryOp::Max:
      return ConstRange{std::max(x->lo, y->lo), std::max(x->hi, y->hi)};
    case BinaryOp::Div:
    case BinaryOp::Mod:
      if (!every_lane || !positive_constant) return std::nullopt;
      return trunc_div_mod_bound(b->op, *x, y->lo);
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<int64_t> value_of_type(DType t, __int128 v) {
  if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) {
    return std::nullopt;
  }
  if (!fits(t, static_cast<int64_t>(v))) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<ConstRange> const_bound(const Expr& e, const VarRanges& ranges) { return bound_of(e, ranges, false); }

std::optional<ConstRange> lane_bound(const Expr& e, const VarRanges& ranges) { return bound_of(e, ranges, true); }

ConstEnds const_ends(const Expr& e) {
  if (const auto* i = e.as<IntImmNode>()) return ConstEnds{i->value, i->value};
  if (const auto* c = e.as<CastNode>()) {
    if (!is_index(c->dtype) || !is_index(c->value->dtype)) return {};
    ConstEnds r = const_ends(c->value);
    if (dtype_bytes(c->dtype) >= dtype_bytes(c->value->dtype)) return r;
    if (!r.lo || !r.hi || !fits(c->dtype, *r.lo) || !fits(c->dtype, *r.hi)) return {};
    return r;
  }
  const auto* b = e.as<BinaryNode>();
  if (!b || !is_index(b->dtype)) return {};
  ConstEnds x = const_ends(b->a), y = const_ends(b->b);
  auto pick = [](std::optional<int64_t> p, std::optional<int64_t> q, bool need_both, auto f) -> std::optional<int64_t> {
    if (p && q) return f(*p, *q);
    if (need_both) return std::nullopt;
    return p ? p : q;
  };
  auto lesser = [](int64_t p, int64_t q) { return std::min(p, q); };
  auto greater = [](int64_t p, int64_t q) { return std::max(p, q); };
  switch (b->op) {
    case BinaryOp::Min: return ConstEnds{pick(x.lo, y.lo, true, lesser), pick(x.hi, y.hi, false, lesser)};
    case BinaryOp::Max: return ConstEnds{pick(x.lo, y.lo, false, greater), pick(x.hi, y.hi, true, greater)};
    case BinaryOp::Add:
    case BinaryOp::Sub: {
      if (!x.lo || !x.hi || !y.lo || !y.hi) return {};
      std::optional<ConstRange> r =
          b->op == BinaryOp::Add ? make_range(b->dtype, __int128{*x.lo} + *y.lo, __int128{*x.hi} + *y.hi)
                                 : make_range(b->dtype, __int128{*x.lo} - *y.hi, __int128{*x.hi} - *y.lo);
      if (!r) return {};
      return ConstEnds{r->lo, r->hi};
    }
    default:
      return {};
  }
}

bool structural_equal(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!structural_equal(a[i], b[i])) return false;
  }
  return true;
}

bool structural_equal(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a->kind != b->kind || a->dtype != b->dtype || a->lanes != b->lanes) return false;
  auto all_equal = [](const std::vector<Expr>& x, const std::vector<Expr>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!structural_equal(x[i], y[i])) return false;
    }
    return true;
  };
  switch (a->kind) {
    case ExprKind::IntImm:
      return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case ExprKind::FloatImm:
      return a.as<FloatImmNode>()->value == b.as<FloatImmNode>()->value;
    case ExprKind::Var:
      return false;
    case ExprKind::Binary: {
      auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
      return x->op == y->op && structural_equal(x->a, y->a) && structural_equal(x->b, y->b);
    }
    case ExprKind::Not:
      return structural_equal(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case ExprKind::Select: {
      auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      return structural_equal(x->cond, y->cond) && structural_equal(x->t, y->t) &&
             structural_equal(x->f, y->f);
    }
    case ExprKind::Cast:
      return structural_equal(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::Call: {
      auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      return x->op == y->op && all_equal(x->args, y->args);
    }
    case ExprKind::TensorRead: {
      auto *x = a.as<TensorReadNode>(), *y = b.as<TensorReadNode>();
      return x->op == y->op && all_equal(x->indices, y->indices);
    }
    case ExprKind::BufferLoad: {
      auto *x = a.as<BufferLoadNode>(), *y = b.as<BufferLoadNode>();
      return x->buffer == y->buffer && all_equal(x->indices, y->indices);
    }
    case ExprKind::Ramp: {
      auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
      return structural_equal(x->base, y->base) && structural_equal(x->stride, y->stride);
    }
    case ExprKind::Broadcast:
      return structural_equal(a.as<BroadcastNode>()->value, b.as<BroadcastNode>()->value);
    case ExprKind::Reduce:
      return false;
  }
  return false;
}

size_t StructuralHasher::operator()(const Expr& e) {
  auto it = memo_.find(e.get());
  if (it != memo_.end()) return it->second;
  size_t h = std::hash<int>()(static_cast<int>(e->kind)) * 31 + static_cast<size_t>(e->dtype) * 7 + e->lanes;
  auto mix = [&](size_t x) { h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  switch (e->kind) {
    case ExprKind::IntImm:
      mix(std::hash<int64_t>()(e.as<IntImmNode>()->value));
      break;
    case ExprKind::FloatImm:
      mix(std::hash<double>()(e.as<FloatImmNode>()->value));
      break;
    case ExprKind::Var:
      mix(std::hash<const void*>()(e.get()));
      break;
    case ExprKind::Binary:
      mix(static_cast<size_t>(e.as<BinaryNode>()->op));
      break;
    case ExprKind::Call:
      mix(static_cast<size_t>(e.as<CallNode>()->op));
      break;
    default:  // the kind, type, lanes and operands are enough to agree with structural_equal
      break;
  }
  ir::for_each_operand(e, [&](const Expr& x) { mix((*this)(x)); });
  memo_[e.get()] = h;
  return h;
}

namespace {

void add_term(LinearForm& f, const Expr& atom, int64_t coeff) {
  if (coeff == 0) return;
  for (auto& t : f.terms) {
    if (structural_equal(t.first, atom)) {
      t.second = wrapping_add(t.second, coeff);
      return;
    }
  }
  f.terms.emplace_back(atom, coeff);
}

void collect(const Expr& e, int64_t scale, LinearForm& f) {
  if (const IntImmNode* i = e.as<IntImmNode>()) {
    f.constant = wrapping_add(f.constant, wrapping_mul(scale, i->value));
    return;
  }
  if (const BinaryNode* b = e.as<BinaryNode>()) {
    switch (b->op) {
      case BinaryOp::Add:
        collect(b->a, scale, f);
        collect(b->b, scale, f);
        return;
      case BinaryOp::Sub:
        collect(b->a, scale, f);
        collect(b->b, wrapping_neg(scale), f);
        return;
      case BinaryOp::Mul:
        if (const int64_t* c = as_const_int(b->b)) {
          collect(b->a, wrapping_mul(scale, *c), f);
          return;
        }
        if (const int64_t* c = as_const_int(b->a)) {
          collect(b->b, wrapping_mul(scale, *c), f);
          return;
        }
        break;
      default:
        break;
    }
  }
  add_term(f, e, scale);
}

/// Sums and products of constants wrap as the expression's own arithmetic does: for int32
/// that is modulo 2^32, so every coefficient is brought back to a value of the type.
void normalize(LinearForm& f) {
  f.constant = wrap_int(f.dtype, f.constant);
  for (auto& t : f.terms) t.second = wrap_int(f.dtype, t.second);
  f.terms.erase(
      std::remove_if(f.terms.begin(), f.terms.end(), [](const auto& t) { return t.second == 0; }),
      f.terms.end());
}

/// The term index of floormod(x, c) matching the floordiv(x, c) term at `div` when their
/// coefficients are k * c and k.
std::optional<size_t> matching_mod(const LinearForm& f, size_t div) {
  const BinaryNode* d = f.terms[div].first.as<BinaryNode>();
  const int64_t* c = d && d->op == BinaryOp::FloorDiv ? as_const_int(d->b) : nullptr;
  if (!c || *c <= 0) return std::nullopt;
  for (size_t j = 0; j < f.terms.size(); ++j) {
    const BinaryNode* m = f.terms[j].first.as<BinaryNode>();
    if (!m || m->op != BinaryOp::FloorMod) continue;
    const int64_t* cm = as_const_int(m->b);
    if (!cm || *cm != *c || !structural_equal(m->a, d->a)) continue;
    if (wrap_int(f.dtype, wrapping_mul(f.terms[j].second, *c)) == f.terms[div].second) return j;
  }
  return std::nullopt;
}

/// Rewrites the first floordiv(x, c) * (c * k) + floormod(x, c) * k of `f` as x * k (c > 0),
/// x's terms taking the place of the floordiv term; false when there is none.
bool merge_one_div_mod(LinearForm& f) {
  for (size_t i = 0; i < f.terms.size(); ++i) {
    std::optional<size_t> j = matching_mod(f, i);
    if (!j) continue;
    Expr x = f.terms[i].first.as<BinaryNode>()->a;
    int64_t k = f.terms[*j].second;
    LinearForm merged;
    merged.dtype = f.dtype;
    merged.constant = f.constant;
    for (size_t t = 0; t < f.terms.size(); ++t) {
      if (t == i) {
        collect(x, k, merged);
      } else if (t != *j) {
        add_term(merged, f.terms[t].first, f.terms[t].second);
      }
    }
    normalize(merged);
    f = std::move(merged);
    return true;
  }
  return false;
}

}  // namespace

LinearForm to_linear(const Expr& e) {
  LinearForm f;
  f.dtype = e->dtype;
  collect(e, 1, f);
  normalize(f);
  // As TVM's canonical simplifier, recombine the pieces of a split or fused index; x may
  // itself hold more pieces, so until none is left.
  while (merge_one_div_mod(f)) {
  }
  return f;
}

Expr from_linear(const LinearForm& f) {
  Expr out;
  auto imm = [&](int64_t v) { return IntImmNode::make(f.dtype, v); };
  // Subtracting |v| reads better than adding v < 0, unless v is the type's minimum, whose
  // magnitude the type cannot hold.
  auto subtracts = [&](int64_t v) { return v < 0 && fits(f.dtype, wrapping_neg(v)) &&
                                           wrapping_neg(v) > 0; };
  for (const auto& [atom, coeff] : f.terms) {
    if (!out.defined()) {
      out = coeff == 1 ? atom
                       : (coeff == -1 ? BinaryNode::make(BinaryOp::Sub, imm(0), atom)
                                      : BinaryNode::make(BinaryOp::Mul, atom, imm(coeff)));
      continue;
    }
    if (coeff == 1) {
      out = BinaryNode::make(BinaryOp::Add, out, atom);
    } else if (coeff == -1) {
      out = BinaryNode::make(BinaryOp::Sub, out, atom);
    } else if (subtracts(coeff)) {
      out = BinaryNode::make(BinaryOp::Sub, out,
                             BinaryNode::make(BinaryOp::Mul, atom, imm(wrapping_neg(coeff))));
    } else {
      out = BinaryNode::make(BinaryOp::Add, out, BinaryNode::make(BinaryOp::Mul, atom, imm(coeff)));
    }
  }
  if (!out.defined()) return imm(f.constant);
  if (subtracts(f.constant)) {
    out = BinaryNode::make(BinaryOp::Sub, out, imm(wrapping_neg(f.constant)));
  } else if (f.constant != 0) {
    out = BinaryNode::make(BinaryOp::Add, out, imm(f.constant));
  }
  return out;
}

Expr index_imm(int64_t v, std::string_view what) {
  MRD_USER_CHECK(fits(DType::Int32, v), what, " ", v, " does not fit an int32 index");
  return IntImmNode::make(DType::Int32, v);
}

int64_t index_mul(int64_t a, int64_t b, std::string_view what) {
  auto p = checked_mul(a, b);
  MRD_USER_CHECK(p && fits(DType::Int32, *p), what, " ", a, " * ", b,
                 " does not fit an int32 index");
  return *p;
}

}  // namespace mrd::lower
