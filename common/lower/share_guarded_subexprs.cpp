#include "common/lower/share_guarded_subexprs.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/ir/expr_queries.h"
#include "common/ir/stmt_functor.h"
#include "common/lower/arith.h"

namespace mrd::lower {

using namespace ir;

namespace {

/// Most lets one body gets (each costs a recount of the body).
constexpr int kMaxLetsPerBody = 64;

/// Structural hashes, sizes and eligibility, memoized by node.
class Shapes {
 public:
  size_t hash(const Expr& e) { return hash_(e); }

  size_t size(const Expr& e) {
    size_t n = 0;
    post_order_visit(e, [&](const Expr&) { ++n; });
    return n;
  }

  /// What TVM's pass may bind to a variable: a scalar computation (not a constant or a
  /// variable) of arithmetic, comparisons and casts only.
  bool eligible(const Expr& e) {
    if (e->lanes != 1) return false;
    if (!e.as<BinaryNode>() && !e.as<NotNode>() && !e.as<CastNode>()) return false;
    auto it = eligible_.find(e.get());
    if (it != eligible_.end()) return it->second;
    bool ok = true;
    post_order_visit(e, [&](const Expr& x) {
      ok = ok && (x.as<BinaryNode>() || x.as<NotNode>() || x.as<CastNode>() || x.as<IntImmNode>() ||
                  x.as<FloatImmNode>() || x.as<VarNode>());
    });
    eligible_[e.get()] = ok;
    return ok;
  }

 private:
  StructuralHasher hash_;
  std::unordered_map<const ExprNode*, bool> eligible_;
};

/// How often each eligible computation occurs in a body, and whether once under a branch.
struct Occurrences {
  struct Entry {
    Expr expr;
    int count = 0;
    bool guarded = false;
    size_t first = 0;  // order of first occurrence, which breaks ties between equal sizes
  };
  std::unordered_map<size_t, std::vector<Entry>> by_hash;
  size_t seen = 0;
};

/// An if_then_else or select the backend evaluates in branches: an if_then_else with a scalar
/// condition, or a scalar select with a read in an arm.
bool branches(const Expr& e) {
  if (const CallNode* c = e.as<CallNode>()) return c->op == CallOp::IfThenElse && c->args[0]->lanes == 1;
  if (const SelectNode* s = e.as<SelectNode>()) return e->lanes == 1 && (has_load(s->t) || has_load(s->f));
  return false;
}

/// Counts the computations of the expressions it is given; those inside the arms of an
/// if_then_else, or of a scalar select that guards a read, count as guarded (the backend
/// branches there).
class Counter : public ExprVisitor {
 public:
  Counter(Shapes& shapes, Occurrences& out, const std::unordered_set<const VarNode*>& bound)
      : shapes_(shapes), out_(out), bound_(bound) {}
  void count(const Expr& e) { visit(e); }

 protected:
  void visit_(const BinaryNode* op, const Expr& self) override {
    note(self);
    ExprVisitor::visit_(op, self);
  }
  void visit_(const NotNode* op, const Expr& self) override {
    note(self);
    ExprVisitor::visit_(op, self);
  }
  void visit_(const CastNode* op, const Expr& self) override {
    note(self);
    ExprVisitor::visit_(op, self);
  }
  void visit_(const CallNode* op, const Expr& self) override {
    if (!branches(self)) return ExprVisitor::visit_(op, self);
    arms(op->args[0], op->args[1], op->args[2]);
  }
  void visit_(const SelectNode* op, const Expr& self) override {
    if (!branches(self)) return ExprVisitor::visit_(op, self);
    arms(op->cond, op->t, op->f);
  }

 private:
  void arms(const Expr& cond, const Expr& t, const Expr& f) {
    visit(cond);
    ++guarded_;
    visit(t);
    visit(f);
    --guarded_;
  }

  void note(const Expr& e) {
    if (!shapes_.eligible(e)) return;
    bool local = false;
    if (!bound_.empty()) {
      post_order_visit(e, [&](const Expr& x) {
        if (const VarNode* v = x.as<VarNode>()) local = local || bound_.count(v) > 0;
      });
    }
    if (local) return;  // it needs a variable bound inside the body
    auto& list = out_.by_hash[shapes_.hash(e)];
    for (Occurrences::Entry& en : list) {
      if (structural_equal(en.expr, e)) {
        ++en.count;
        en.guarded = en.guarded || guarded_ > 0;
        return;
      }
    }
    list.push_back({e, 1, guarded_ > 0, out_.seen++});
  }

  Shapes& shapes_;
  Occurrences& out_;
  const std::unordered_set<const VarNode*>& bound_;
  int guarded_ = 0;
};

/// The expressions a body evaluates itself: not those of nested loops' bodies, nor the
/// branches of if statements (each is a body of its own, as TVM's pass counts an `if` only
/// by what both branches compute).
void body_exprs(const Stmt& s, std::vector<Expr>& exprs, std::unordered_set<const VarNode*>& bound) {
  switch (s->kind) {
    case StmtKind::For: {
      const ForNode* op = s.as<ForNode>();
      exprs.push_back(op->min);
      exprs.push_back(op->extent);
      return;
    }
    case StmtKind::Allocate:
      return body_exprs(s.as<AllocateNode>()->body, exprs, bound);
    case StmtKind::Store: {
      const StoreNode* op = s.as<StoreNode>();
      for (const Expr& i : op->indices) exprs.push_back(i);
      exprs.push_back(op->value);
      return;
    }
    case StmtKind::IfThenElse:
      exprs.push_back(s.as<IfThenElseNode>()->cond);
      return;
    case StmtKind::Seq:
      for (const Stmt& x : s.as<SeqNode>()->stmts) body_exprs(x, exprs, bound);
      return;
    case StmtKind::Let: {
      const LetNode* op = s.as<LetNode>();
      exprs.push_back(op->value);
      bound.insert(op->var.as<VarNode>());
      return body_exprs(op->body, exprs, bound);
    }
  }
}

/// Replaces every occurrence of `target` with `var`.
class Replacer : public StmtMutator, public ExprMutator {
 public:
  Replacer(Expr target, Var var) : target_(std::move(target)), var_(std::move(var)) {}
  Stmt run(const Stmt& s) { return StmtMutator::visit(s); }

 protected:
  Expr mutate_expr(const Expr& e) override { return ExprMutator::visit(e); }
  Expr visit_(const BinaryNode* op, const Expr& self) override {
    return structural_equal(self, target_) ? Expr(var_) : ExprMutator::visit_(op, self);
  }
  Expr visit_(const NotNode* op, const Expr& self) override {
    return structural_equal(self, target_) ? Expr(var_) : ExprMutator::visit_(op, self);
  }
  Expr visit_(const CastNode* op, const Expr& self) override {
    return structural_equal(self, target_) ? Expr(var_) : ExprMutator::visit_(op, self);
  }
  using ExprMutator::visit_;
  using StmtMutator::visit_;

 private:
  Expr target_;
  Var var_;
};

class Sharer : public StmtMutator {
 public:
  /// `s` as a body: its nested bodies first, then its own lets.
  Stmt body(const Stmt& s) {
    Stmt b = visit(s);
    std::vector<std::pair<Var, Expr>> lets;
    while (lets.size() < static_cast<size_t>(kMaxLetsPerBody)) {
      Expr pick = largest_shared(b);
      if (!pick.defined()) break;
      Var v("cse_var_" + std::to_string(++count_), pick->dtype);
      b = Replacer(pick, v).run(b);
      lets.emplace_back(v, pick);
    }
    for (size_t i = lets.size(); i-- > 0;) b = LetNode::make(lets[i].first, lets[i].second, b);
    return b;
  }

 protected:
  Stmt visit_(const ForNode* op, const Stmt&) override {
    return ForNode::make(op->var, op->min, op->extent, op->for_kind, body(op->body), op->auto_unroll_max_step);
  }
  Stmt visit_(const IfThenElseNode* op, const Stmt&) override {
    return IfThenElseNode::make(op->cond, body(op->then_case),
                                op->else_case.defined() ? body(op->else_case) : Stmt());
  }

 private:
  /// The largest computation that occurs under a branch and twice or more in body b.
  Expr largest_shared(const Stmt& b) {
    std::vector<Expr> exprs;
    std::unordered_set<const VarNode*> bound;
    body_exprs(b, exprs, bound);
    bool any_branch = false;
    for (const Expr& e : exprs) {
      post_order_visit(e, [&](const Expr& x) { any_branch = any_branch || branches(x); });
    }
    if (!any_branch) return Expr();  // nothing is computed under a branch here
    // Fresh memos each time: nodes the last replacement dropped may be reused.
    Shapes shapes;
    Occurrences occ;
    Counter counter(shapes, occ, bound);
    for (const Expr& e : exprs) counter.count(e);
    const Occurrences::Entry* best = nullptr;
    size_t best_size = 0;
    for (const auto& [h, list] : occ.by_hash) {
      for (const Occurrences::Entry& en : list) {
        if (!en.guarded || en.count < 2) continue;
        size_t n = shapes.size(en.expr);
        if (n > best_size || (n == best_size && en.first < best->first)) {
          best = &en;
          best_size = n;
        }
      }
    }
    return best ? best->expr : Expr();
  }

  int count_ = 0;
};

}  // namespace

Stmt share_guarded_subexprs(const Stmt& body) {
  return Sharer().body(body);
}

}  // namespace mrd::lower
