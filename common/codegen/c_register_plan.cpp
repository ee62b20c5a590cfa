#include "common/codegen/c_register_plan.h"

#include <algorithm>

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"

namespace mrd::codegen {

using namespace ir;

std::optional<int64_t> RegisterPromotion::admit(AffineIndex a, const ExprNode* lane, int64_t lane_start, int width,
                                                const LoopRanges& ranges,
                                                const std::unordered_set<const ExprNode*>& region_bound, bool store) {
  if (failed_) return std::nullopt;
  int64_t offset = a.constant;
  if (lane) {
    if (a.coefficient(static_cast<const VarNode*>(lane)) != 1) return fail();
    for (auto t = a.terms.begin(); t != a.terms.end(); ++t) {
      if (t->second.first.get() == lane) {
        a.terms.erase(t);
        break;
      }
    }
    offset += lane_start;
  } else {
    width = 0;
  }
  int64_t lo = 0, hi = 0;
  for (const auto& [key, term] : a.terms) {
    bool bound = false;
    post_order_visit(term.first, [&](const Expr& x) { bound = bound || region_bound.count(x.get()); });
    auto r = ranges.find(term.first.get());
    if (bound || r == ranges.end()) return fail();
    int64_t k = term.second;
    lo += k > 0 ? k * r->second.first : k * r->second.second;
    hi += k > 0 ? k * r->second.second : k * r->second.first;
  }
  int64_t w = std::max(width, 1);
  if (lo + offset < 0 || hi + offset + w > size_) return fail();
  if (!started_) {
    started_ = true;
    base_key_ = a.base_key();
    base_ = a.terms;
  } else if (base_key_ != a.base_key()) {
    return fail();
  }
  auto r = chunks_.find(offset);
  if (r == chunks_.end()) {
    auto next = chunks_.lower_bound(offset);
    if (next != chunks_.end() && next->first < offset + w) return fail();
    if (next != chunks_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + std::max(prev->second.width, 1) > offset) return fail();
    }
    r = chunks_.emplace(offset, RegisterChunk{width, false}).first;
  } else if (r->second.width != width) {
    return fail();
  }
  r->second.stored = r->second.stored || store;
  return offset;
}

RegisterCount register_count(const std::vector<const RegisterPromotion*>& promotions) {
  RegisterCount c;
  for (const RegisterPromotion* p : promotions) {
    for (const auto& [off, chunk] : p->chunks()) ++(chunk.width > 0 ? c.vector : c.scalar);
  }
  return c;
}

RegisterCount max_count(RegisterCount a, RegisterCount b) {
  return {std::max(a.vector, b.vector), std::max(a.scalar, b.scalar)};
}

bool within_budget(RegisterCount c) {
  return c.vector <= kMaxVectorRegisters && c.scalar <= kMaxScalarRegisters;
}

bool fits_registers(const std::vector<const RegisterPromotion*>& promotions) {
  return within_budget(register_count(promotions));
}

bool fits_whole_scope(int64_t elements, DType t) { return elements * dtype_bytes(t) <= 64 * kMaxVectorRegisters; }

std::vector<const BufferNode*> accessed_locals(const Stmt& s,
                                               const std::unordered_map<const BufferNode*, int64_t>& allocated) {
  struct Finder : StmtVisitor {
    const std::unordered_map<const BufferNode*, int64_t>* allocated;
    std::vector<const BufferNode*> out;
    void add(const BufferNode* b) {
      if (allocated->count(b) && std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    }
    void visit_(const StoreNode* op, const Stmt& self) override {
      add(op->buffer.get());
      StmtVisitor::visit_(op, self);
    }
    void visit_expr(const Expr& x) override {
      post_order_visit(x, [&](const Expr& y) {
        if (const auto* l = y.as<BufferLoadNode>()) add(l->buffer.get());
      });
    }
  } f;
  f.allocated = &allocated;
  f.visit(s);
  return f.out;
}

}  // namespace mrd::codegen
