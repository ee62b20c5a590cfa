#include "common/lower/common_subexpr_elim.h"

#include <algorithm>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/ir/expr_queries.h"
#include "common/ir/printer.h"
#include "common/ir/stmt_functor.h"
#include "common/lower/arith.h"

namespace mrd::lower {

using namespace ir;

namespace {

/// Computations and how often each is seen, in the order they were first seen.
class Table {
 public:
  struct Entry {
    Expr expr;
    size_t hash;
    size_t count;
  };

  void add(const Expr& e, size_t hash, size_t count) {
    if (std::optional<size_t> i = position(e, hash)) {
      entries_[*i].count += count;
      return;
    }
    index_[hash].push_back(entries_.size());
    entries_.push_back({e, hash, count});
  }
  void add(const Table& other) {
    for (const Entry& en : other.entries_) add(en.expr, en.hash, en.count);
  }
  const Entry* find(const Expr& e, size_t hash) const {
    std::optional<size_t> i = position(e, hash);
    return i ? &entries_[*i] : nullptr;
  }
  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::optional<size_t> position(const Expr& e, size_t hash) const {
    auto it = index_.find(hash);
    if (it == index_.end()) return std::nullopt;
    for (size_t i : it->second) {
      if (structural_equal(entries_[i].expr, e)) return i;
    }
    return std::nullopt;
  }

  std::vector<Entry> entries_;
  std::unordered_map<size_t, std::vector<size_t>> index_;
};

/// What two or more of three children compute (TVM's rule for a loop's min, extent and body,
/// and an if's condition and branches): each such computation with its count over all three.
Table shared_by_two(const Table& a, const Table& b, const Table& c) {
  Table out;
  for (const Table* t : {&a, &b, &c}) {
    for (const Table::Entry& en : t->entries()) {
      if (out.find(en.expr, en.hash)) continue;
      size_t in = 0, count = 0;
      for (const Table* u : {&a, &b, &c}) {
        if (const Table::Entry* x = u->find(en.expr, en.hash)) {
          ++in;
          count += x->count;
        }
      }
      if (in >= 2) out.add(en.expr, en.hash, count);
    }
  }
  return out;
}

bool is_atom(const Expr& e) {
  return e->kind == ExprKind::IntImm || e->kind == ExprKind::FloatImm || e->kind == ExprKind::Var;
}

/// Reads and calls: neither they nor anything containing them may be bound to a variable.
bool forbidden(const Expr& e) {
  switch (e->kind) {
    case ExprKind::Call:
    case ExprKind::BufferLoad:
    case ExprKind::TensorRead:
    case ExprKind::Reduce:
      return true;
    default:
      return false;
  }
}

/// The computations done by statements and expressions, memoized by node. The memos keep
/// their nodes alive, so that an address is never reused while it is a key.
class Computations {
 public:
  size_t hash(const Expr& e) { return hasher_(e); }

  /// Not a constant, a variable, a ramp or a broadcast, and nothing forbidden inside.
  bool eligible(const Expr& e) {
    if (is_atom(e) || e->kind == ExprKind::Ramp || e->kind == ExprKind::Broadcast) return false;
    return !contains_forbidden(e);
  }

  /// TVM's expression complexity: the number of nodes.
  size_t complexity(const Expr& e) {
    auto it = size_.find(e.get());
    if (it != size_.end()) return it->second.second;
    size_t n = 1;
    for_each_operand(e, [&](const Expr& c) { n += complexity(c); });
    size_.emplace(e.get(), std::make_pair(e, n));
    return n;
  }

  /// The eligible parts nearest below e: its eligible operands, and those of the others.
  void direct_parts(const Expr& e, std::vector<Expr>& out) {
    for_each_operand(e, [&](const Expr& c) {
      if (eligible(c)) {
        out.push_back(c);
      } else {
        direct_parts(c, out);
      }
    });
  }

  /// An eligible expression counts as itself; another as what its operands compute.
  const Table& of(const Expr& e) {
    if (is_atom(e)) return empty_;
    auto it = exprs_.find(e.get());
    if (it != exprs_.end()) return it->second.second;
    Table t;
    if (eligible(e)) {
      t.add(e, hash(e), 1);
    } else {
      for_each_operand(e, [&](const Expr& c) { t.add(of(c)); });
    }
    return exprs_.emplace(e.get(), std::make_pair(e, std::move(t))).first->second.second;
  }

  const Table& of(const Stmt& s) {
    auto it = stmts_.find(s.get());
    if (it != stmts_.end()) return it->second.second;
    Table t;
    switch (s->kind) {
      case StmtKind::For: {
        const ForNode* op = s.as<ForNode>();
        const Table& mn = of(op->min);
        const Table& ext = of(op->extent);
        // With nothing in min and extent, nothing can be shared by two of the three.
        if (!mn.empty() || !ext.empty()) t = shared_by_two(mn, ext, of(op->body));
        break;
      }
      case StmtKind::Allocate:
        t.add(of(s.as<AllocateNode>()->body));
        break;
      case StmtKind::Store: {
        const StoreNode* op = s.as<StoreNode>();
        for (const Expr& i : op->indices) t.add(of(i));
        t.add(of(op->value));
        break;
      }
      case StmtKind::IfThenElse: {
        const IfThenElseNode* op = s.as<IfThenElseNode>();
        t = shared_by_two(of(op->cond), of(op->then_case), op->else_case.defined() ? of(op->else_case) : empty_);
        break;
      }
      case StmtKind::Seq:
        for (const Stmt& x : s.as<SeqNode>()->stmts) t.add(of(x));
        break;
      case StmtKind::Let: {
        const LetNode* op = s.as<LetNode>();
        t.add(of(op->value));
        t.add(of(op->body));
        break;
      }
    }
    return stmts_.emplace(s.get(), std::make_pair(s, std::move(t))).first->second.second;
  }

 private:
  bool contains_forbidden(const Expr& e) {
    if (is_atom(e)) return false;
    auto it = forbidden_inside_.find(e.get());
    if (it != forbidden_inside_.end()) return it->second.second;
    bool f = forbidden(e);
    for_each_operand(e, [&](const Expr& c) { f = f || contains_forbidden(c); });
    forbidden_inside_.emplace(e.get(), std::make_pair(e, f));
    return f;
  }

  StructuralHasher hasher_;
  Table empty_;
  std::unordered_map<const ExprNode*, std::pair<Expr, Table>> exprs_;
  std::unordered_map<const StmtNode*, std::pair<Stmt, Table>> stmts_;
  std::unordered_map<const ExprNode*, std::pair<Expr, size_t>> size_;
  std::unordered_map<const ExprNode*, std::pair<Expr, bool>> forbidden_inside_;
};

/// Replaces each occurrence of a computation by its variable, outermost first.
class Replacer : public StmtMutator, public ExprMutator {
 public:
  void add(const Expr& computation, const Var& var) { by_hash_[hasher_(computation)].push_back({computation, var}); }
  Stmt in(const Stmt& s) { return StmtMutator::visit(s); }
  /// The computation itself with its parts replaced (the value of its own let).
  Expr below(const Expr& computation) {
    skip_root_ = true;
    return ExprMutator::visit(computation);
  }

 protected:
  Expr mutate_expr(const Expr& e) override { return ExprMutator::visit(e); }
  Expr visit_(const BinaryNode* op, const Expr& self) override {
    return replaced(self) ? replacement_ : ExprMutator::visit_(op, self);
  }
  Expr visit_(const NotNode* op, const Expr& self) override {
    return replaced(self) ? replacement_ : ExprMutator::visit_(op, self);
  }
  Expr visit_(const CastNode* op, const Expr& self) override {
    return replaced(self) ? replacement_ : ExprMutator::visit_(op, self);
  }
  Expr visit_(const SelectNode* op, const Expr& self) override {
    return replaced(self) ? replacement_ : ExprMutator::visit_(op, self);
  }
  using ExprMutator::visit_;
  using StmtMutator::visit_;

 private:
  bool replaced(const Expr& e) {
    if (skip_root_) {
      skip_root_ = false;
      return false;
    }
    auto it = by_hash_.find(hasher_(e));
    if (it == by_hash_.end()) return false;
    for (const auto& [computation, var] : it->second) {
      if (structural_equal(computation, e)) {
        replacement_ = var;
        return true;
      }
    }
    return false;
  }

  StructuralHasher hasher_;  // lives no longer than the statement it replaces in
  std::unordered_map<size_t, std::vector<std::pair<Expr, Var>>> by_hash_;
  Expr replacement_;
  bool skip_root_ = false;
};

/// The variables of e.
void vars_of(const Expr& e, std::vector<const VarNode*>& out) {
  post_order_visit(e, [&](const Expr& x) {
    if (const VarNode* v = x.as<VarNode>()) out.push_back(v);
  });
}

/// Variables that a loop or a let of `s` binds.
void bound_in(const Stmt& s, std::unordered_set<const VarNode*>& out) {
  switch (s->kind) {
    case StmtKind::For:
      out.insert(s.as<ForNode>()->var.as<VarNode>());
      return bound_in(s.as<ForNode>()->body, out);
    case StmtKind::Allocate:
      return bound_in(s.as<AllocateNode>()->body, out);
    case StmtKind::Store:
      return;
    case StmtKind::IfThenElse:
      bound_in(s.as<IfThenElseNode>()->then_case, out);
      if (s.as<IfThenElseNode>()->else_case.defined()) bound_in(s.as<IfThenElseNode>()->else_case, out);
      return;
    case StmtKind::Seq:
      for (const Stmt& x : s.as<SeqNode>()->stmts) bound_in(x, out);
      return;
    case StmtKind::Let:
      out.insert(s.as<LetNode>()->var.as<VarNode>());
      return bound_in(s.as<LetNode>()->body, out);
  }
}

class Eliminator {
 public:
  explicit Eliminator(const Stmt& body) { bound_in(body, bound_somewhere_); }

  /// TVM's VisitStmt: the lets this statement gets, then the same for what it holds.
  Stmt visit(const Stmt& s) { return descend(introduce(s)); }

 private:
  struct Candidate {
    Expr expr;
    size_t hash, size, order, count;
  };
  struct Scoped {
    Expr var;
    Expr value;  // undefined for a loop variable
    size_t hash;
  };

  /// The computations of s seen twice or more and computable above it become lets around it.
  Stmt introduce(const Stmt& s) {
    std::vector<Candidate> cands;
    std::unordered_map<size_t, std::vector<size_t>> where;
    // Largest first; among equals, the first queued (in_tvm_order, then parts as they come).
    auto later = [&](size_t a, size_t b) {
      return cands[a].size != cands[b].size ? cands[a].size < cands[b].size : cands[a].order > cands[b].order;
    };
    std::priority_queue<size_t, std::vector<size_t>, decltype(later)> queue(later);
    auto push = [&](const Expr& e, size_t hash, size_t count) {
      cands.push_back({e, hash, comp_.complexity(e), cands.size(), count});
      where[hash].push_back(cands.size() - 1);
      queue.push(cands.size() - 1);
    };
    for (const Table::Entry* en : in_tvm_order(comp_.of(s))) push(en->expr, en->hash, en->count);

    Replacer replacer;
    std::vector<std::pair<Var, Expr>> lets;
    bool replaced = false;
    while (!queue.empty()) {
      Candidate c = cands[queue.top()];
      queue.pop();
      if (Expr v = in_scope_with_value(c.expr, c.hash); v.defined()) {
        replacer.add(c.expr, Var::from(v));
        replaced = true;
        continue;
      }
      if (c.count >= 2 && computable_here(c.expr)) {
        Var v("cse_var_" + std::to_string(++count_), c.expr->dtype, c.expr->lanes);
        bound_somewhere_.insert(v.as<VarNode>());  // in scope only below its let, as TVM's context is
        replacer.add(c.expr, v);
        replaced = true;
        lets.emplace_back(v, c.expr);
        continue;
      }
      std::vector<Expr> parts;
      comp_.direct_parts(c.expr, parts);
      for (const Expr& p : parts) {
        size_t h = comp_.hash(p);
        bool found = false;
        for (size_t i : where[h]) {
          if (structural_equal(cands[i].expr, p)) {
            ++cands[i].count;
            found = true;
            break;
          }
        }
        if (!found) push(p, h, 1);
      }
    }
    if (!replaced) return s;
    Stmt out = replacer.in(s);
    for (const auto& [var, computation] : lets) out = LetNode::make(var, replacer.below(computation), out);
    return out;
  }

  /// A statement's computations in the order TVM's OrderOnExprAndFrequency sorts them: largest
  /// first, equal sizes by their printed text (TVM's legacy printer, which ir::to_string
  /// follows). The order decides which lets come first and so the order of the code that
  /// computes them: a conv2d state whose seven accumulator offsets were bound in the order first
  /// seen was register-allocated with spills that TVM's order does not get, 1.45x TVM's cost.
  /// Parts tried later are queued behind the computations of their size, as TVM inserts them.
  std::vector<const Table::Entry*> in_tvm_order(const Table& table) {
    const std::vector<Table::Entry>& entries = table.entries();
    std::vector<size_t> size(entries.size());
    std::vector<std::optional<std::string>> text(entries.size());
    std::vector<size_t> order(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      size[i] = comp_.complexity(entries[i].expr);
      order[i] = i;
    }
    auto text_of = [&](size_t i) -> const std::string& {
      if (!text[i]) text[i] = to_string(entries[i].expr);
      return *text[i];
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return size[a] != size[b] ? size[a] > size[b] : text_of(a) < text_of(b);
    });
    std::vector<const Table::Entry*> out;
    out.reserve(order.size());
    for (size_t i : order) out.push_back(&entries[i]);
    return out;
  }

  /// The statements s holds, each visited with the variables bound around it in scope.
  Stmt descend(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::For: {
        const ForNode* op = s.as<ForNode>();
        enter(op->var, Expr());
        Stmt body = visit(op->body);
        leave();
        return body.same_as(op->body) ? s
                                      : ForNode::make(op->var, op->min, op->extent, op->for_kind, body,
                                                      op->auto_unroll_max_step);
      }
      case StmtKind::Allocate: {
        const AllocateNode* op = s.as<AllocateNode>();
        Stmt body = visit(op->body);
        return body.same_as(op->body) ? s : AllocateNode::make(op->buffer, body);
      }
      case StmtKind::Store:
        return s;
      case StmtKind::IfThenElse: {
        const IfThenElseNode* op = s.as<IfThenElseNode>();
        Stmt then_case = visit(op->then_case);
        Stmt else_case = op->else_case.defined() ? visit(op->else_case) : Stmt();
        return then_case.same_as(op->then_case) && else_case.same_as(op->else_case)
                   ? s
                   : IfThenElseNode::make(op->cond, then_case, else_case);
      }
      case StmtKind::Seq: {
        const SeqNode* op = s.as<SeqNode>();
        std::vector<Stmt> stmts;
        bool changed = false;
        for (const Stmt& x : op->stmts) {
          stmts.push_back(visit(x));
          changed = changed || !stmts.back().same_as(x);
        }
        return changed ? SeqNode::make(std::move(stmts)) : s;
      }
      case StmtKind::Let: {
        const LetNode* op = s.as<LetNode>();
        enter(op->var, op->value);
        Stmt body = visit(op->body);
        leave();
        return body.same_as(op->body) ? s : LetNode::make(op->var, op->value, body);
      }
    }
    return s;
  }

  void enter(const Var& var, const Expr& value) {
    size_t hash = value.defined() ? comp_.hash(value) : 0;
    scope_.push_back({var, value, hash});
    ++in_scope_[var.as<VarNode>()];
    if (value.defined()) by_value_[hash].push_back(scope_.size() - 1);
  }
  void leave() {
    const Scoped& x = scope_.back();
    if (--in_scope_[x.var.as<VarNode>()] == 0) in_scope_.erase(x.var.as<VarNode>());
    if (x.value.defined()) {
      auto it = by_value_.find(x.hash);
      it->second.pop_back();
      if (it->second.empty()) by_value_.erase(it);
    }
    scope_.pop_back();
  }

  /// The outermost variable in scope bound to e, if any.
  Expr in_scope_with_value(const Expr& e, size_t hash) const {
    auto it = by_value_.find(hash);
    if (it == by_value_.end()) return Expr();
    for (size_t i : it->second) {
      if (structural_equal(scope_[i].value, e)) return scope_[i].var;
    }
    return Expr();
  }

  /// Every variable of e is bound above here (or is bound nowhere in the function).
  bool computable_here(const Expr& e) const {
    std::vector<const VarNode*> vars;
    vars_of(e, vars);
    for (const VarNode* v : vars) {
      if (bound_somewhere_.count(v) && !in_scope_.count(v)) return false;
    }
    return true;
  }

  Computations comp_;
  std::unordered_set<const VarNode*> bound_somewhere_;
  std::vector<Scoped> scope_;                                      // outermost first
  std::unordered_map<const VarNode*, int> in_scope_;                 // how often each is bound
  std::unordered_map<size_t, std::vector<size_t>> by_value_;         // lets' values, by hash
  int count_ = 0;
};

}  // namespace

Stmt common_subexpr_elim(const Stmt& body) { return Eliminator(body).visit(body); }

}  // namespace mrd::lower
