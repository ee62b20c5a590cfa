#include "common/lower/int_set.h"

#include "common/ir/expr_functor.h"
#include "common/ir/substitute.h"
#include "common/lower/arith.h"
#include "common/lower/simplify.h"

namespace mrd::lower {

using namespace ir;

IntSet IntSet::range(int64_t lo, int64_t hi) {
  if (lo == hi) return point(index_imm(lo, "bound"));
  return IntSet{index_imm(lo, "bound"), index_imm(hi, "bound")};
}

IntSet IntSet::of(Expr min, Expr max) {
  if (structural_equal(min, max)) return point(min);
  return IntSet{std::move(min), std::move(max)};
}

namespace {

bool uses_dom(const Expr& e, const SetMap& dom) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) {
    if (const VarNode* v = x.as<VarNode>()) {
      auto it = dom.find(v);
      if (it != dom.end() && !it->second.is_point()) found = true;
    }
  });
  return found;
}

Expr simp(const Expr& e) {
  return simplify_expr(e);
}

}  // namespace

std::optional<IntSet> eval_set(const Expr& e, const SetMap& dom) {
  if (!uses_dom(e, dom)) {
    VarMap points;
    post_order_visit(e, [&](const Expr& x) {
      if (const VarNode* v = x.as<VarNode>()) {
        auto it = dom.find(v);
        if (it != dom.end()) points[v] = it->second.min;
      }
    });
    return IntSet::point(simp(substitute(e, points)));
  }
  if (const VarNode* v = e.as<VarNode>()) return dom.at(v);
  if (const CastNode* c = e.as<CastNode>()) {
    if (!is_index(c->dtype) || !is_index(c->value->dtype)) return std::nullopt;
    return eval_set(c->value, dom);
  }
  const BinaryNode* b = e.as<BinaryNode>();
  if (b == nullptr || !is_index(b->dtype)) return std::nullopt;
  auto x = eval_set(b->a, dom);
  auto y = eval_set(b->b, dom);
  if (!x || !y) return std::nullopt;
  switch (b->op) {
    case BinaryOp::Add:
      return IntSet::of(simp(x->min + y->min), simp(x->max + y->max));
    case BinaryOp::Sub:
      return IntSet::of(simp(x->min - y->max), simp(x->max - y->min));
    case BinaryOp::Mul: {
      const IntSet* s = &*x;
      const int64_t* c = y->is_point() ? as_const_int(y->min) : nullptr;
      if (c == nullptr && x->is_point()) {
        c = as_const_int(x->min);
        s = &*y;
      }
      if (c == nullptr) return std::nullopt;
      Expr k = s == &*x ? y->min : x->min;
      if (*c >= 0) return IntSet::of(simp(s->min * k), simp(s->max * k));
      return IntSet::of(simp(s->max * k), simp(s->min * k));
    }
    case BinaryOp::FloorDiv: {
      const int64_t* c = y->is_point() ? as_const_int(y->min) : nullptr;
      if (c == nullptr || *c <= 0) return std::nullopt;
      return IntSet::of(simp(floordiv(x->min, y->min)), simp(floordiv(x->max, y->min)));
    }
    case BinaryOp::FloorMod: {
      const int64_t* c = y->is_point() ? as_const_int(y->min) : nullptr;
      if (c == nullptr || *c <= 0) return std::nullopt;
      return IntSet::range(0, *c - 1);
    }
    case BinaryOp::Min:
      return IntSet::of(simp(min(x->min, y->min)), simp(min(x->max, y->max)));
    case BinaryOp::Max:
      return IntSet::of(simp(max(x->min, y->min)), simp(max(x->max, y->max)));
    default:
      return std::nullopt;
  }
}

}  // namespace mrd::lower
