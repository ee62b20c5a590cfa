#include "common/lower/expand_unrolled.h"

#include <algorithm>

#include "common/ir/stmt_functor.h"
#include "common/ir/substitute.h"

namespace mrd::lower {

using namespace ir;

namespace {

/// Counts saturate here: far above any unroll limit, and no product of extents can overflow.
constexpr int64_t kCountCap = int64_t{1} << 40;

int64_t capped_mul(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  return a > kCountCap / b ? kCountCap : std::min(a * b, kCountCap);
}

int64_t capped_add(int64_t a, int64_t b) { return std::min(a + b, kCountCap); }

/// Stores in `s`, counting a loop's body once per iteration where the extent is constant.
int64_t store_count(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::Store: return 1;
    case StmtKind::For: {
      const auto* op = s.as<ForNode>();
      const int64_t* ext = as_const_int(op->extent);
      int64_t body = store_count(op->body);
      // A vectorized loop becomes a few vector statements.
      if (op->for_kind == ForKind::Vectorized) return body;
      return ext ? capped_mul(body, std::max<int64_t>(*ext, 1)) : body;
    }
    case StmtKind::Allocate: return store_count(s.as<AllocateNode>()->body);
    case StmtKind::IfThenElse: {
      const auto* op = s.as<IfThenElseNode>();
      return capped_add(store_count(op->then_case),
                        op->else_case.defined() ? store_count(op->else_case) : 0);
    }
    case StmtKind::Seq: {
      int64_t n = 0;
      for (const Stmt& x : s.as<SeqNode>()->stmts) n = capped_add(n, store_count(x));
      return n;
    }
    case StmtKind::Let: return store_count(s.as<LetNode>()->body);
  }
  return 1;
}

class Expander : public StmtMutator {
 public:
  explicit Expander(int64_t max_stores) : max_stores_(max_stores) {}
  Stmt run(const Stmt& s) { return visit(s); }

 protected:
  Stmt visit_(const ForNode* op, const Stmt& self) override {
    Stmt body = visit(op->body);
    const int64_t* mn = as_const_int(op->min);
    const int64_t* ext = as_const_int(op->extent);
    if (op->for_kind == ForKind::Unrolled && mn && ext && *ext >= 0 &&
        capped_mul(std::max<int64_t>(*ext, 1), store_count(body)) <= max_stores_) {
      std::vector<Stmt> copies;
      for (int64_t i = 0; i < *ext; ++i) {
        Expr value = IntImmNode::make(op->var->dtype, *mn + i);
        copies.push_back(substitute(body, VarMap{{op->var.as<VarNode>(), value}}));
      }
      if (copies.empty()) return SeqNode::make({});
      return SeqNode::make(std::move(copies));
    }
    if (body.same_as(op->body)) return self;
    return ForNode::make(op->var, op->min, op->extent, op->for_kind, body, op->auto_unroll_max_step);
  }

 private:
  int64_t max_stores_;
};

}  // namespace

Stmt expand_unrolled(const Stmt& s, int64_t max_stores) {
  return Expander(max_stores).run(s);
}

}  // namespace mrd::lower
