#include "common/codegen/c_vector_plan.h"

#include "common/codegen/affine_index.h"
#include "common/ir/expr_functor.h"
#include "common/ir/expr_queries.h"
#include "common/ir/stmt_functor.h"

namespace mrd::codegen {

using namespace ir;

namespace {

constexpr int64_t kMaxVectorLoopExtent = 4096;
constexpr size_t kMaxVectorChunks = 64;

bool is_compare(BinaryOp op) {
  return op == BinaryOp::LT || op == BinaryOp::LE || op == BinaryOp::GT || op == BinaryOp::GE ||
         op == BinaryOp::EQ || op == BinaryOp::NE;
}

// Condition chain around one store: the vectorizable body form.
const StoreNode* vector_store(const Stmt& body, std::vector<Expr>& conds) {
  Stmt s = body;
  while (const auto* i = s.as<IfThenElseNode>()) {
    if (i->else_case.defined()) return nullptr;
    conds.push_back(i->cond);
    s = i->then_case;
  }
  return s.as<StoreNode>();
}

/// Checks one vectorized loop body, collecting the atoms of its conditions.
class Planner {
 public:
  Planner(const VarNode* var, const StoreNode* st, const VectorContext& ctx)
      : vvar_(var), vst_(st), vsi_(flat_affine(st->buffer, st->indices)), ctx_(ctx) {}

  bool store_ok() const { return vsi_.coefficient(vvar_) == 1 && !vsi_.atom_uses(vvar_); }
  bool strided() const { return strided_; }
  std::unordered_map<const ExprNode*, CondAtom>& atoms() { return atoms_; }

  enum CondKind { kNotVector, kFoldable };

  // kFoldable when every part of `c` that depends on the lane is an affine atom.
  CondKind cond_kind(const Expr& c) {
    if (!uses(c, vvar_)) return kFoldable;
    if (const auto* call = c.as<CallNode>()) {
      if (call->op == CallOp::Likely && call->args.size() == 1) return cond_kind(call->args[0]);
      return kNotVector;
    }
    if (const auto* n = c.as<NotNode>()) return cond_kind(n->a);
    if (const auto* b = c.as<BinaryNode>()) {
      if (b->op == BinaryOp::And || b->op == BinaryOp::Or) {
        return cond_kind(b->a) == kFoldable && cond_kind(b->b) == kFoldable ? kFoldable : kNotVector;
      }
      if (is_compare(b->op) && classify_atom(c)) return kFoldable;
    }
    return kNotVector;
  }

  bool vector_expr_ok(const Expr& e) {
    const StoreNode* st = vst_;
    if (!uses(e, vvar_)) {
      bool reads_target = false;
      post_order_visit(e, [&](const Expr& x) {
        const auto* l = x.as<BufferLoadNode>();
        reads_target = reads_target || (l && l->buffer.get() == st->buffer.get());
      });
      return !reads_target && e->dtype == st->buffer->dtype;
    }
    if (e->dtype != st->buffer->dtype) return false;
    if (const auto* l = e.as<BufferLoadNode>()) {
      AffineIndex a = flat_affine(l->buffer, l->indices);
      const int64_t k = a.coefficient(vvar_);
      if (k == 0 || a.atom_uses(vvar_)) return false;
      // A strided read (a transposed operand) is gathered lane by lane, only for a store to
      // registers (an accumulator: the gather is then the only memory traffic; into memory,
      // the scalar form measured faster) and not under a `GCC unroll` pragma, whose copies of
      // gathers cost the compiler seconds.
      if (k != 1) {
        strided_ = true;
        return !ctx_.copied && ctx_.in_registers(st->buffer.get()) && l->buffer.get() != st->buffer.get() &&
               !ctx_.register_candidate(l->buffer.get()) && k > -(1 << 20) && k < (1 << 20);
      }
      if (l->buffer.get() == st->buffer.get()) {
        return a.base_key() == vsi_.base_key() && a.constant == vsi_.constant;
      }
      return true;
    }
    if (const auto* b = e.as<BinaryNode>()) {
      bool op_ok = b->op == BinaryOp::Add || b->op == BinaryOp::Sub || b->op == BinaryOp::Mul ||
                   b->op == BinaryOp::Min || b->op == BinaryOp::Max ||
                   (b->op == BinaryOp::Div && is_float(b->dtype));
      return op_ok && vector_expr_ok(b->a) && vector_expr_ok(b->b);
    }
    // A select is vectorized when its condition is fixed per chunk: only the chosen operand is
    // evaluated, as in the scalar form (a padding load outside the input is never made).
    if (const auto* s = e.as<SelectNode>()) {
      return cond_kind(s->cond) == kFoldable && vector_expr_ok(s->t) && vector_expr_ok(s->f);
    }
    if (const auto* c = e.as<CallNode>()) {
      return c->op == CallOp::IfThenElse && c->args.size() == 3 && cond_kind(c->args[0]) == kFoldable &&
             vector_expr_ok(c->args[1]) && vector_expr_ok(c->args[2]);
    }
    return false;
  }

  // Chunks (first lane, width) covering [lo, lo + n): cut where a static atom changes value;
  // uniform chunks when a width of at least 8 lanes (or the widest) divides the extent, else
  // the widest that fit, down to single lanes.
  std::vector<std::pair<int64_t, int>> chunks(int64_t lo, int64_t n, int max_width) const {
    std::vector<int64_t> cuts{lo};
    for (int64_t x = lo + 1; x < lo + n; ++x) {
      for (const auto& [node, a] : atoms_) {
        if (a.is_static && a.value_at(x) != a.value_at(x - 1)) {
          cuts.push_back(x);
          break;
        }
      }
    }
    cuts.push_back(lo + n);
    std::vector<std::pair<int64_t, int>> out;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      int64_t start = cuts[i], len = cuts[i + 1] - cuts[i];
      int uniform = max_width;
      while (uniform > 1 && len % uniform != 0) uniform /= 2;
      if (uniform >= 8 || uniform == max_width) {
        for (int64_t x = start; x < start + len; x += uniform) out.emplace_back(x, uniform);
      } else {
        while (len > 0) {
          int w = max_width;
          while (w > len) w /= 2;
          out.emplace_back(start, w);
          start += w;
          len -= w;
        }
      }
      if (out.size() > kMaxVectorChunks) break;
    }
    return out;
  }

 private:
  // Registers comparison `e` as an atom when it is affine in the lane variable.
  bool classify_atom(const Expr& e) {
    if (atoms_.count(e.get())) return true;
    const auto* b = e.as<BinaryNode>();
    if (!b || !is_compare(b->op) || !is_index(b->a->dtype)) return false;
    AffineIndex d = affine_of(b->a);
    AffineIndex r = affine_of(b->b);
    // d - r, term by term (both sides are small affine forms).
    for (const auto& [key, term] : r.terms) {
      auto it = d.terms.find(key);
      if (it == d.terms.end()) {
        d.terms.emplace(key, std::make_pair(term.first, -term.second));
      } else if ((it->second.second -= term.second) == 0) {
        d.terms.erase(it);
      }
    }
    d.constant -= r.constant;
    int64_t k = d.coefficient(vvar_);
    if (k == 0 || d.atom_uses(vvar_)) return false;
    constexpr int64_t kLimit = int64_t{1} << 30;  // the int32 C arithmetic cannot wrap
    if (k <= -kLimit || k >= kLimit || d.constant <= -kLimit || d.constant >= kLimit) return false;
    CondAtom a;
    a.expr = e;
    a.op = b->op;
    a.k = k;
    a.c = d.constant;
    a.is_static = d.terms.size() == 1;
    // A runtime check at both ends of a chunk proves only a monotone comparison.
    if (!a.is_static && (a.op == BinaryOp::EQ || a.op == BinaryOp::NE)) return false;
    atoms_.emplace(e.get(), a);
    return true;
  }

  const VarNode* vvar_;
  const StoreNode* vst_;
  AffineIndex vsi_;
  const VectorContext& ctx_;
  std::unordered_map<const ExprNode*, CondAtom> atoms_;
  bool strided_ = false;  // the body reads with a stride other than 1
};

}  // namespace

bool CondAtom::value_at(int64_t lane) const {
  int64_t v = k * lane + c;
  switch (op) {
    case BinaryOp::LT: return v < 0;
    case BinaryOp::LE: return v <= 0;
    case BinaryOp::GT: return v > 0;
    case BinaryOp::GE: return v >= 0;
    case BinaryOp::EQ: return v == 0;
    default: return v != 0;
  }
}

std::optional<VectorPlan> plan_vector_loop(const ForNode* op, const VectorContext& ctx) {
  const int64_t* cmin = as_const_int(op->min);
  const int64_t* cext = as_const_int(op->extent);
  if (!cmin || !cext || *cext < 2 || *cext > kMaxVectorLoopExtent) return std::nullopt;
  if (*cmin <= -(int64_t{1} << 30) || *cmin >= (int64_t{1} << 30)) return std::nullopt;
  VectorPlan plan;
  plan.var = op->var.as<VarNode>();
  plan.store = vector_store(op->body, plan.conds);
  if (!plan.store) return std::nullopt;
  DType t = plan.store->buffer->dtype;
  if (t != DType::Float32 && t != DType::Float64 && t != DType::Int32) return std::nullopt;
  Planner p(plan.var, plan.store, ctx);
  if (!p.store_ok()) return std::nullopt;
  for (const Expr& c : plan.conds) {
    if (p.cond_kind(c) != Planner::kFoldable) return std::nullopt;
  }
  if (!p.vector_expr_ok(plan.store->value)) return std::nullopt;
  // Three lanes are better left to the scalar form (the compiler's own SLP handles them).
  // So are two lanes of gathers.
  if (p.atoms().empty() && *cext <= kMaxScalarLanes && (*cext & (*cext - 1)) != 0) return std::nullopt;
  if (p.strided() && *cext <= 2) return std::nullopt;
  plan.chunks = p.chunks(*cmin, *cext, 64 / dtype_bytes(t));
  bool any_vector = false;
  for (const auto& ch : plan.chunks) any_vector = any_vector || ch.second > 1;
  if (plan.chunks.size() > kMaxVectorChunks || !any_vector) return std::nullopt;
  plan.atoms = std::move(p.atoms());
  return plan;
}

bool stores_vary_with(const Stmt& s, const ExprNode* v) {
  struct Checker : StmtVisitor {
    const ExprNode* var;
    bool ok = true;
    void visit_(const StoreNode* op, const Stmt& self) override {
      bool uses = false, hidden = false;
      for (const Expr& idx : op->indices) {
        post_order_visit(idx, [&](const Expr& e) {
          if (e.get() == var) uses = true;
          if (const auto* b = e.as<BinaryNode>()) {
            if (b->op == BinaryOp::FloorDiv || b->op == BinaryOp::FloorMod || b->op == BinaryOp::Div) {
              post_order_visit(b->a, [&](const Expr& x) { hidden = hidden || x.get() == var; });
            }
          }
        });
      }
      if (!uses || hidden) ok = false;
      StmtVisitor::visit_(op, self);
    }
  } checker;
  checker.var = v;
  checker.visit(s);
  return checker.ok;
}

}  // namespace mrd::codegen
