#include "client/tune/program_features.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <unordered_map>

#include "common/ir/expr_functor.h"
#include "common/lower/lower.h"

namespace mrd::tune {

namespace {

using ir::Expr;
using ir::ExprNode;
using Env = std::unordered_map<const ExprNode*, int64_t>;

double log2p(double v) { return std::log2(std::max(v, 1.0)); }

/// The cache line of every CPU the tuner targets (TVM's HardwareParams default).
constexpr double kCacheLineBytes = 64;

/// The integer value of an index expression with the variables in `env` bound and every
/// other variable 0, or nothing for what an index should not contain.
std::optional<int64_t> eval_index(const Expr& e, const Env& env) {
  if (const auto* imm = e.as<ir::IntImmNode>()) return imm->value;
  if (e.as<ir::VarNode>()) {
    auto it = env.find(e.get());
    return it == env.end() ? 0 : it->second;
  }
  if (const auto* c = e.as<ir::CastNode>()) return eval_index(c->value, env);
  if (const auto* r = e.as<ir::RampNode>()) return eval_index(r->base, env);
  if (const auto* b = e.as<ir::BroadcastNode>()) return eval_index(b->value, env);
  if (const auto* s = e.as<ir::SelectNode>()) return eval_index(s->t, env);
  const auto* bin = e.as<ir::BinaryNode>();
  if (bin == nullptr) return std::nullopt;
  std::optional<int64_t> a = eval_index(bin->a, env), b = eval_index(bin->b, env);
  if (!a || !b) return std::nullopt;
  switch (bin->op) {
    case ir::BinaryOp::Add: return *a + *b;
    case ir::BinaryOp::Sub: return *a - *b;
    case ir::BinaryOp::Mul: return *a * *b;
    case ir::BinaryOp::Min: return std::min(*a, *b);
    case ir::BinaryOp::Max: return std::max(*a, *b);
    case ir::BinaryOp::Div:
    case ir::BinaryOp::FloorDiv:
      if (*b == 0) return std::nullopt;
      return *a >= 0 ? *a / *b : -((-*a + *b - 1) / *b);
    case ir::BinaryOp::FloorMod:
      if (*b == 0) return std::nullopt;
      return ((*a % *b) + *b) % *b;
    case ir::BinaryOp::Mod:
      if (*b == 0 || *b == -1) return std::nullopt;
      return *a % *b;
    default: return std::nullopt;
  }
}

struct Loop {
  const ExprNode* var;
  int64_t extent;
  ir::ForKind kind;
};

struct Access {
  ir::Buffer buffer;
  Expr index;  // flattened: one index
};

struct StoreInfo {
  std::vector<Loop> loops;  // outermost first
  int64_t auto_unroll = 0;
  const ir::StoreNode* store;
  std::vector<Access> loads;
  double executions = 1;
};

class Collector {
 public:
  std::vector<StoreInfo> stores;
  double local_bytes = 0;

  void visit(const ir::Stmt& s) {
    if (!s.defined()) return;
    if (const auto* f = s.as<ir::ForNode>()) {
      const auto* ext = f->extent.as<ir::IntImmNode>();
      int64_t saved_unroll = unroll_;
      if (f->auto_unroll_max_step >= 0) unroll_ = std::max(unroll_, f->auto_unroll_max_step);
      loops_.push_back({f->var.get(), ext ? ext->value : 1, f->for_kind});
      visit(f->body);
      loops_.pop_back();
      unroll_ = saved_unroll;
    } else if (const auto* a = s.as<ir::AllocateNode>()) {
      local_bytes += static_cast<double>(a->buffer->num_elements()) * ir::dtype_bytes(a->buffer->dtype);
      visit(a->body);
    } else if (const auto* st = s.as<ir::StoreNode>()) {
      StoreInfo info{loops_, unroll_, st, {}, 1};
      for (const Loop& l : loops_) info.executions *= static_cast<double>(l.extent);
      ir::post_order_visit(st->value, [&](const Expr& x) {
        if (const auto* ld = x.as<ir::BufferLoadNode>(); ld && ld->indices.size() == 1) {
          info.loads.push_back({ld->buffer, ld->indices[0]});
        }
      });
      stores.push_back(std::move(info));
    } else if (const auto* i = s.as<ir::IfThenElseNode>()) {
      visit(i->then_case);
      visit(i->else_case);
    } else if (const auto* q = s.as<ir::SeqNode>()) {
      for (const ir::Stmt& x : q->stmts) visit(x);
    } else if (const auto* l = s.as<ir::LetNode>()) {
      visit(l->body);
    }
  }

 private:
  std::vector<Loop> loops_;
  int64_t unroll_ = 0;
};

/// How far the index moves when `var` steps by one (others at 0).
int64_t stride_of(const Expr& index, const ExprNode* var) {
  Env at0{{var, 0}}, at1{{var, 1}};
  std::optional<int64_t> a = eval_index(index, at0), b = eval_index(index, at1);
  return a && b ? *b - *a : 1;
}

/// Elements an access touches while the loops [0, depth) (innermost first) run: the span of
/// an affine index, at most the product of the extents it depends on and the buffer's size.
double touched_elements(const Access& a, const std::vector<Loop>& inner_first, size_t depth) {
  double span = 1, product = 1;
  for (size_t l = 0; l < depth && l < inner_first.size(); ++l) {
    const Loop& loop = inner_first[l];
    int64_t s = stride_of(a.index, loop.var);
    if (s == 0) continue;
    span += static_cast<double>(std::llabs(s)) * static_cast<double>(loop.extent - 1);
    product *= static_cast<double>(loop.extent);
  }
  return std::min({span, product, static_cast<double>(a.buffer->num_elements())});
}

/// Cache lines an access touches while the loops [0, depth) run: its touched elements over
/// the run of consecutive elements the loops of unit stride walk, at most a line's worth.
double touched_lines(const Access& a, const std::vector<Loop>& inner_first, size_t depth) {
  const double elem_bytes = ir::dtype_bytes(a.buffer->dtype);
  double run = 1;
  for (size_t l = 0; l < depth && l < inner_first.size(); ++l) {
    if (std::llabs(stride_of(a.index, inner_first[l].var)) == 1) run *= static_cast<double>(inner_first[l].extent);
  }
  run = std::min(run, std::max(1.0, kCacheLineBytes / elem_bytes));
  return std::max(1.0, touched_elements(a, inner_first, depth) / run);
}

void append_store(const StoreInfo& s, std::vector<double>& out) {
  std::vector<Loop> inner_first(s.loops.rbegin(), s.loops.rend());
  double lanes = 1, unrolled = 1, parallel = 1;
  for (const Loop& l : s.loops) {
    if (l.kind == ir::ForKind::Vectorized) lanes = static_cast<double>(l.extent);
    if (l.kind == ir::ForKind::Unrolled) unrolled *= static_cast<double>(l.extent);
    if (l.kind == ir::ForKind::Parallel) parallel *= static_cast<double>(l.extent);
  }
  // The store first, then the loads in the order they are read.
  const Expr store_index = s.store->indices.size() == 1 ? s.store->indices[0] : Expr(0);
  std::vector<Access> accesses{{s.store->buffer, store_index}};
  accesses.insert(accesses.end(), s.loads.begin(), s.loads.end());
  bool reduction = false;
  for (const Access& a : s.loads) reduction = reduction || a.buffer == s.store->buffer;
  int stride0 = 0, stride1 = 0, strided = 0;
  if (!inner_first.empty()) {
    for (const Access& a : accesses) {
      int64_t st = stride_of(a.index, inner_first[0].var);
      (st == 0 ? stride0 : st == 1 || st == -1 ? stride1 : strided) += 1;
    }
  }
  const double elem_bytes = ir::dtype_bytes(s.store->buffer->dtype);
  out.push_back(log2p(s.executions));
  out.push_back(log2p(lanes));
  out.push_back(log2p(unrolled));
  out.push_back(log2p(1.0 + static_cast<double>(s.auto_unroll)));
  out.push_back(log2p(parallel));
  out.push_back(s.store->buffer->scope == ir::MemScope::Local ? 1.0 : 0.0);
  out.push_back(reduction ? 1.0 : 0.0);
  out.push_back(log2p(1.0 + static_cast<double>(s.loads.size())));
  out.push_back(stride0);
  out.push_back(stride1);
  out.push_back(strided);
  out.push_back(log2p(static_cast<double>(s.store->buffer->num_elements()) * elem_bytes));
  double iterations = 1;  // of the loops [0, l], innermost first
  for (int l = 0; l < kFeatureLoopLevels; ++l) {
    if (l >= static_cast<int>(inner_first.size())) {
      out.insert(out.end(), kFeaturesPerLevel, 0.0);
      continue;
    }
    const Loop& loop = inner_first[l];
    const size_t depth = static_cast<size_t>(l) + 1;
    iterations *= static_cast<double>(loop.extent);
    double bytes = 0, lines = 0;
    std::vector<double> access_bytes(kFeatureAccesses, 0.0);
    for (size_t k = 0; k < accesses.size(); ++k) {
      const double b = touched_elements(accesses[k], inner_first, depth) * ir::dtype_bytes(accesses[k].buffer->dtype);
      bytes += b;
      lines += touched_lines(accesses[k], inner_first, depth);
      if (k < access_bytes.size()) access_bytes[k] = log2p(b);
    }
    out.push_back(log2p(static_cast<double>(loop.extent)));
    out.push_back(static_cast<double>(loop.kind));
    out.push_back(stride_of(store_index, loop.var) == 0 ? 1.0 : 0.0);
    out.push_back(log2p(bytes));
    out.push_back(log2p(lines));
    // Loads per byte touched: how much the level reuses what it brings in.
    out.push_back(std::log2(iterations * static_cast<double>(std::max<size_t>(1, s.loads.size())) /
                            std::max(bytes, 1.0)));
    out.insert(out.end(), access_bytes.begin(), access_bytes.end());
  }
}

}  // namespace

std::vector<double> program_features(const ir::PrimFunc& f) {
  Collector c;
  c.visit(f.body);
  std::vector<const StoreInfo*> order;
  double total = 0;
  for (const StoreInfo& s : c.stores) {
    order.push_back(&s);
    total += s.executions;
  }
  std::stable_sort(order.begin(), order.end(), [](const StoreInfo* a, const StoreInfo* b) {
    return a->executions > b->executions;
  });
  std::vector<double> out;
  out.reserve(kProgramFeatures);
  out.push_back(log2p(1.0 + static_cast<double>(c.stores.size())));
  out.push_back(log2p(c.local_bytes));
  out.push_back(log2p(total));
  for (int i = 0; i < kFeatureStores; ++i) {
    if (i < static_cast<int>(order.size())) {
      append_store(*order[i], out);
    } else {
      out.insert(out.end(), kFeaturesPerStore, 0.0);
    }
  }
  return out;
}

std::vector<double> state_features(const dag::ComputeDAG& dag,
                                   const std::vector<schedule::Step>& steps) {
  try {
    return program_features(lower::lower(dag, steps));
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace mrd::tune
