#include "common/lower/unroll_loop.h"

#include <algorithm>
#include <limits>

#include "common/ir/expr_functor.h"
#include "common/ir/expr_queries.h"
#include "common/ir/scalar_semantics.h"
#include "common/ir/stmt_functor.h"
#include "common/ir/substitute.h"

namespace mrd::lower {

using namespace ir;

namespace {

constexpr int kAutoMaxDepth = 8;

/// True when TVM's vectorizer would give up on the loop and leave a serial loop: a condition
/// (if statement or if_then_else) that varies across the lanes.
class ScalarizeCheck : public StmtVisitor {
 public:
  explicit ScalarizeCheck(const VarNode* v) : var_(v) {}
  bool run(const Stmt& s) {
    visit(s);
    return found_;
  }

 protected:
  void visit_expr(const Expr& e) override {
    post_order_visit(e, [&](const Expr& x) {
      const CallNode* c = x.as<CallNode>();
      if (c && c->op == CallOp::IfThenElse && uses(c->args[0], var_)) found_ = true;
    });
  }
  void visit_(const IfThenElseNode* op, const Stmt& self) override {
    if (uses(op->cond, var_)) found_ = true;
    StmtVisitor::visit_(op, self);
  }

 private:
  const VarNode* var_;
  bool found_ = false;
};

class Unroller : public StmtMutator {
 public:
  Stmt run(const Stmt& s) { return visit(s); }

 protected:
  Stmt visit_(const ForNode* op, const Stmt& self) override {
    int64_t saved_max = max_step_;
    if (op->auto_unroll_max_step >= 0) max_step_ = op->auto_unroll_max_step;
    Stmt body = visit(op->body);
    max_step_ = saved_max;
    if (op->auto_unroll_max_step >= 0) {
      // The pragma scope wraps the loop itself.
      max_step_ = op->auto_unroll_max_step;
    }
    const int64_t* ext = as_const_int(op->extent);
    int64_t value = ext ? *ext : -1;
    ForKind kind = op->for_kind;
    bool unroll = false;
    bool vector =
        kind == ForKind::Vectorized && !ScalarizeCheck(op->var.as<VarNode>()).run(op->body);
    if (vector) {
      // One vector statement; does not block unrolling of outer loops.
    } else {
      bool serial = kind == ForKind::Serial || kind == ForKind::Vectorized;
      unroll = serial && value >= 0 && normal_depth_ == 0 && unroll_depth_ <= kAutoMaxDepth &&
               steps_with(value) <= max_step_;
      if (kind == ForKind::Unrolled) unroll = true;
      if (unroll) {
        step_count_ = steps_with(std::max<int64_t>(value, 0));
        unroll_depth_ += 1;
        kind = ForKind::Unrolled;
      } else {
        normal_depth_ += 1;
      }
    }
    max_step_ = saved_max;
    if (body.same_as(op->body) && kind == op->for_kind) return self;
    return ForNode::make(op->var, op->min, op->extent, kind, body, op->auto_unroll_max_step);
  }

  Stmt visit_(const StoreNode* op, const Stmt& self) override {
    step_count_ = saturating_add(step_count_, 1);
    return StmtMutator::visit_(op, self);
  }

  Stmt visit_(const SeqNode* op, const Stmt& self) override {
    int64_t steps = step_count_;
    int unroll_depth = unroll_depth_, normal_depth = normal_depth_;
    bool changed = false;
    std::vector<Stmt> out;
    for (const Stmt& s : op->stmts) {
      step_count_ = 0;
      unroll_depth_ = 0;
      normal_depth_ = 0;
      out.push_back(visit(s));
      changed |= !out.back().same_as(s);
      steps = saturating_add(steps, step_count_);
      unroll_depth = std::max(unroll_depth, unroll_depth_);
      normal_depth = std::max(normal_depth, normal_depth_);
    }
    step_count_ = steps;
    unroll_depth_ = unroll_depth;
    normal_depth_ = normal_depth;
    return changed ? SeqNode::make(std::move(out)) : self;
  }

 private:
  // Step counts saturate: a nest of huge forced-unroll loops must not overflow them.
  static int64_t saturating_add(int64_t a, int64_t b) {
    return checked_add(a, b).value_or(std::numeric_limits<int64_t>::max());
  }
  /// The step count once the body counted so far is repeated `n` times (n >= 0).
  int64_t steps_with(int64_t n) const {
    return checked_mul(step_count_, n).value_or(std::numeric_limits<int64_t>::max());
  }

  int64_t max_step_ = 0;
  int64_t step_count_ = 0;
  int unroll_depth_ = 0;
  int normal_depth_ = 0;
};

class TrivialLoopRemover : public StmtMutator {
 public:
  Stmt run(const Stmt& s) { return visit(s); }

 protected:
  Stmt visit_(const ForNode* op, const Stmt& self) override {
    const int64_t* ext = as_const_int(op->extent);
    if (ext && *ext == 1) {
      Stmt body = substitute(op->body, VarMap{{op->var.as<VarNode>(), op->min}});
      return visit(body);
    }
    return StmtMutator::visit_(op, self);
  }
};

}  // namespace

Stmt unroll_loop(const Stmt& body) {
  return TrivialLoopRemover().run(Unroller().run(body));
}

}  // namespace mrd::lower
