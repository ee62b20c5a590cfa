#include "common/lower/vectorize_loop.h"

#include <numeric>
#include <unordered_map>

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"
#include "common/ir/substitute.h"
#include "common/lower/arith.h"
#include "common/lower/simplify.h"
#include "common/util/error.h"

namespace mrd::lower {

using namespace ir;

namespace {

bool is_vector(const Expr& e) { return e->lanes > 1; }

/// The scalar base of a ramp-or-scalar expression and its stride (0 for a scalar).
struct Affine {
  Expr base, stride;
};

std::optional<Affine> as_affine(const Expr& e) {
  if (const RampNode* r = e.as<RampNode>()) return Affine{r->base, r->stride};
  if (const BroadcastNode* b = e.as<BroadcastNode>()) {
    return Affine{b->value, IntImmNode::make(b->dtype, 0)};
  }
  if (!is_vector(e)) return Affine{e, IntImmNode::make(e->dtype, 0)};
  return std::nullopt;
}

Expr make_ramp(const Expr& base, const Expr& stride, int lanes) {
  Expr s = simplify_expr(stride);
  Expr b = simplify_expr(base);
  const int64_t* c = as_const_int(s);
  if (c && *c == 0) return BroadcastNode::make(b, lanes);
  return RampNode::make(b, s, lanes);
}

/// Rewrites one vectorized loop body with the loop variable as a ramp.
class Vectorizer : public StmtMutator, public ExprMutator {
 public:
  Vectorizer(const VarNode* var, Expr ramp, int lanes) : var_(var), ramp_(std::move(ramp)), lanes_(lanes) {}

  Stmt run(const Stmt& s) { return vectorize_stmt(s); }

 private:
  // --- statements ---------------------------------------------------------------------
  using StmtMutator::visit;
  using StmtMutator::visit_;
  using ExprMutator::visit_;

  /// Vectorizes s, or scalarizes it when something inside cannot be vectorized.
  Stmt vectorize_stmt(const Stmt& s) {
    MRD_CHECK(!need_scalarize_, "vectorize_loop: nested scalarization request");
    Stmt out = StmtMutator::visit(s);
    if (need_scalarize_) {
      need_scalarize_ = false;
      return scalarize(s);
    }
    return out;
  }

  /// A serial loop over the lanes around the original statement. A variable of an enclosing
  /// let that became a vector is replaced by its scalar value at the lane.
  Stmt scalarize(const Stmt& s) {
    Var lane(var_->name + ".s", var_->dtype);
    Expr index = simplify_expr(ramp_.as<RampNode>()->base + lane);
    VarMap vm{{var_, index}};
    for (const auto& [from, let] : let_vectors_) vm.emplace(from, substitute(let.scalar_value, {{var_, index}}));
    return ForNode::make(lane, IntImmNode::make(var_->dtype, 0), IntImmNode::make(var_->dtype, lanes_),
                         ForKind::Serial, substitute(s, vm));
  }

  Expr mutate_expr(const Expr& e) override { return ExprMutator::visit(e); }

  Stmt visit_(const SeqNode* op, const Stmt& self) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (const Stmt& s : op->stmts) {
      out.push_back(vectorize_stmt(s));
      changed |= !out.back().same_as(s);
    }
    return changed ? SeqNode::make(std::move(out)) : self;
  }

  Stmt visit_(const ForNode* op, const Stmt& self) override {
    Expr extent = ExprMutator::visit(op->extent);
    Expr min = ExprMutator::visit(op->min);
    if (is_vector(extent) || is_vector(min)) {
      need_scalarize_ = true;
      return self;
    }
    Stmt body = vectorize_stmt(op->body);
    // A vectorized loop inside a vectorized loop runs serially (TVM warns and ignores it).
    ForKind kind = op->for_kind == ForKind::Vectorized ? ForKind::Serial : op->for_kind;
    if (body.same_as(op->body) && kind == op->for_kind) return self;
    return ForNode::make(op->var, op->min, op->extent, kind, body, op->auto_unroll_max_step);
  }

  Stmt visit_(const AllocateNode* op, const Stmt& self) override {
    need_scalarize_ = true;
    return self;
  }

  Stmt visit_(const IfThenElseNode* op, const Stmt& self) override {
    Expr cond = ExprMutator::visit(op->cond);
    if (is_vector(cond)) {
      need_scalarize_ = true;
      return self;
    }
    Stmt t = vectorize_stmt(op->then_case);
    Stmt e = op->else_case.defined() ? vectorize_stmt(op->else_case) : op->else_case;
    if (cond.same_as(op->cond) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
    return IfThenElseNode::make(cond, t, e);
  }

  Stmt visit_(const LetNode* op, const Stmt& self) override {
    Expr value = ExprMutator::visit(op->value);
    if (need_scalarize_) return self;
    if (!is_vector(value)) {
      Stmt body = vectorize_stmt(op->body);
      if (value.same_as(op->value) && body.same_as(op->body)) return self;
      return LetNode::make(op->var, value, body);
    }
    Var v(op->var.name(), value->dtype, value->lanes);
    // Its value in terms of the loop variable alone, for scalarized statements below.
    VarMap outer;
    for (const auto& [from, let] : let_vectors_) outer.emplace(from, let.scalar_value);
    let_vectors_[op->var.as<VarNode>()] = VectorLet{v, substitute(op->value, outer)};
    Stmt body = vectorize_stmt(op->body);
    let_vectors_.erase(op->var.as<VarNode>());
    return LetNode::make(v, value, body);
  }

  Stmt visit_(const StoreNode* op, const Stmt& self) override {
    MRD_CHECK(op->indices.size() == 1, "vectorize_loop: storage must be flattened");
    Expr value = ExprMutator::visit(op->value);
    Expr index = ExprMutator::visit(op->indices[0]);
    if (need_scalarize_) return self;
    if (is_vector(value) && !is_vector(index)) {
      // Every lane would write one address: a reduction over the vectorized axis.
      need_scalarize_ = true;
      return self;
    }
    if (value.same_as(op->value) && index.same_as(op->indices[0])) return self;
    return StoreNode::make(op->buffer, {index}, value);
  }

  // --- expressions --------------------------------------------------------------------
  Expr visit_(const VarNode* op, const Expr& self) override {
    if (op == var_) return ramp_;
    auto it = let_vectors_.find(op);
    return it != let_vectors_.end() ? it->second.vector_var : self;
  }

  Expr visit_(const BinaryNode* op, const Expr& self) override {
    Expr a = ExprMutator::visit(op->a), b = ExprMutator::visit(op->b);
    if (a.same_as(op->a) && b.same_as(op->b)) return self;
    // Integer arithmetic on ramps and broadcasts folds into one ramp or broadcast.
    if (is_index(op->dtype) && (is_vector(a) || is_vector(b))) {
      if (Expr r = ramp_arith(op->op, a, b); r.defined()) return r;
    }
    return BinaryNode::make(op->op, a, b);
  }

  /// + - * with a scalar, and floordiv/floormod by a constant, keep a ramp a ramp.
  Expr ramp_arith(BinaryOp bop, const Expr& a, const Expr& b) {
    auto x = as_affine(a), y = as_affine(b);
    if (!x || !y) return Expr();
    int lanes = std::max(a->lanes, b->lanes);
    switch (bop) {
      case BinaryOp::Add:
        return make_ramp(x->base + y->base, x->stride + y->stride, lanes);
      case BinaryOp::Sub:
        return make_ramp(x->base - y->base, x->stride - y->stride, lanes);
      case BinaryOp::Mul: {
        const int64_t* sx = as_const_int(simplify_expr(x->stride));
        const int64_t* sy = as_const_int(simplify_expr(y->stride));
        if (sy && *sy == 0) return make_ramp(x->base * y->base, x->stride * y->base, lanes);
        if (sx && *sx == 0) return make_ramp(x->base * y->base, y->stride * x->base, lanes);
        return Expr();
      }
      case BinaryOp::FloorDiv:
      case BinaryOp::FloorMod:
        if (is_vector(b) && !b.as<BroadcastNode>()) return Expr();
        return ramp_div(bop, *x, b.as<BroadcastNode>() ? b.as<BroadcastNode>()->value : b, lanes);
      default:
        return Expr();
    }
  }

  /// floordiv/floormod of Ramp(base, s, lanes) by a constant c > 0 when no two lanes fall into
  /// different quotients: with g = gcd(c, the coefficients of base's linear form), base mod c
  /// is a multiple of g plus r = constant mod g, so the lanes stay below c when
  /// r + (lanes - 1) * s < g (s >= 0).
  Expr ramp_div(BinaryOp bop, const Affine& x, const Expr& divisor, int lanes) {
    if (is_vector(divisor)) return Expr();
    const int64_t* c = as_const_int(divisor);
    const int64_t* s = as_const_int(simplify_expr(x.stride));
    if (!c || !s || *c <= 0 || *s < 0) return Expr();
    if (*s == 0) {
      Expr scalar = BinaryNode::make(bop, x.base, divisor);
      return BroadcastNode::make(simplify_expr(scalar), lanes);
    }
    LinearForm f = to_linear(simplify_expr(x.base));
    int64_t g = *c;
    for (const auto& term : f.terms) g = std::gcd(g, term.second < 0 ? -term.second : term.second);
    int64_t r = ((f.constant % g) + g) % g;
    if (r + (lanes - 1) * *s >= g) return Expr();
    if (bop == BinaryOp::FloorDiv) return BroadcastNode::make(simplify_expr(floordiv(x.base, divisor)), lanes);
    return make_ramp(floormod(x.base, divisor), x.stride, lanes);
  }

  /// TVM's ops without the TVectorizable attribute: a loop that would give them a vector
  /// argument runs lane by lane.
  static bool scalar_only(CallOp op) {
    return op == CallOp::Erf || op == CallOp::Rsqrt || op == CallOp::IsNan;
  }

  Expr visit_(const CallNode* op, const Expr& self) override {
    if (op->op == CallOp::IfThenElse) {
      Expr cond = ExprMutator::visit(op->args[0]);
      if (is_vector(cond)) {
        need_scalarize_ = true;
        return self;
      }
    }
    if (!scalar_only(op->op)) return ExprMutator::visit_(op, self);
    std::vector<Expr> args;
    bool changed = false;
    for (const Expr& a : op->args) {
      args.push_back(ExprMutator::visit(a));
      if (is_vector(args.back())) {
        need_scalarize_ = true;
        return self;
      }
      changed |= !args.back().same_as(a);
    }
    return changed ? CallNode::make(op->op, std::move(args)) : self;
  }

  const VarNode* var_;
  Expr ramp_;
  int lanes_;
  bool need_scalarize_ = false;
  struct VectorLet {
    Expr vector_var;    ///< the vector variable that replaces the let's variable
    Expr scalar_value;  ///< the let's value with enclosing vector lets substituted
  };
  std::unordered_map<const VarNode*, VectorLet> let_vectors_;
};

class LoopVectorizer : public StmtMutator {
 public:
  Stmt run(const Stmt& s) { return visit(s); }

 protected:
  Stmt visit_(const ForNode* op, const Stmt& self) override {
    if (op->for_kind != ForKind::Vectorized) return StmtMutator::visit_(op, self);
    const int64_t* extent = as_const_int(op->extent);
    if (!extent || *extent < 2 || *extent > kMaxLanes) {
      // Nothing to vectorize (one lane) or no constant extent: a serial loop.
      Stmt body = visit(op->body);
      return ForNode::make(op->var, op->min, op->extent, ForKind::Serial, body, op->auto_unroll_max_step);
    }
    int lanes = static_cast<int>(*extent);
    Expr ramp = RampNode::make(op->min, IntImmNode::make(op->var->dtype, 1), lanes);
    return Vectorizer(op->var.as<VarNode>(), ramp, lanes).run(op->body);
  }
};

}  // namespace

Stmt vectorize_loop(const Stmt& body) { return LoopVectorizer().run(body); }

}  // namespace mrd::lower
