#include "common/lower/lower.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "common/ir/printer.h"
#include "common/lower/bind_buffers.h"
#include "common/lower/common_subexpr_elim.h"
#include "common/lower/expand_unrolled.h"
#include "common/lower/hoist_guard_bounds.h"
#include "common/lower/infer_bound.h"
#include "common/lower/inline_stages.h"
#include "common/lower/lift_guards.h"
#include "common/lower/lower_context.h"
#include "common/lower/rewrite_layout.h"
#include "common/lower/schedule_ops.h"
#include "common/lower/simplify.h"
#include "common/lower/storage_flatten.h"
#include "common/lower/storage_rewrite.h"
#include "common/lower/lower_floor_div_mod.h"
#include "common/lower/swap_broadcast_cast.h"
#include "common/lower/unroll_loop.h"
#include "common/lower/vectorize_loop.h"
#include "common/schedule/apply_steps.h"
#include "common/util/error.h"

namespace mrd::lower {

namespace {

void log_pass(const char* name, const ir::Stmt& before, const ir::Stmt& after) {
  if (!spdlog::should_log(spdlog::level::debug)) return;
  if (before.defined() && before.same_as(after)) {
    spdlog::debug("lower: after {} (unchanged)", name);
  } else {
    spdlog::debug("lower: after {}:\n{}", name, ir::to_string(after));
  }
}

/// Lowered code indexes with int32, as TVM: every tensor and reduction domain must fit.
void check_int32_domains(const dag::ComputeDAG& dag) {
  constexpr __int128 kMax = std::numeric_limits<int32_t>::max();
  for (const ir::Operation& op : dag.ops()) {
    __int128 n = 1, r = 1;
    for (int64_t d : op->shape) n = std::min<__int128>(n * d, kMax + 1);
    for (const ir::IterVar& iv : op->reduce_axis) {
      r = std::min<__int128>(r * iv.extent, kMax + 1);
      MRD_USER_CHECK(iv.min >= -kMax && iv.min <= kMax, "reduction axis ", iv.var.name(), " of ",
                     op->name, " starts out of the int32 range");
    }
    MRD_USER_CHECK(n <= kMax && r <= kMax, "tensor ", op->name,
                   " is too large to index with int32");
  }
}

/// s = pass(s), logged under `name`.
template <typename Pass>
void run_pass(const char* name, ir::Stmt& s, Pass&& pass) {
  ir::Stmt next = pass(s);
  log_pass(name, s, next);
  s = std::move(next);
}

}  // namespace

ir::PrimFunc lower(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps) {
  LowerContext ctx;
  check_int32_domains(dag);
  ctx.dag = &dag;
  ctx.sch = schedule::apply_steps(dag, steps);
  inline_stages(ctx);
  infer_bound(ctx);

  ir::Stmt s = schedule_ops(ctx);
  log_pass("schedule_ops", ir::Stmt(), s);

  ir::PrimFunc f;
  run_pass("bind_buffers", s, [&](const ir::Stmt& x) { return bind_buffers(ctx, x, f.params); });
  run_pass("storage_flatten", s, storage_flatten);
  run_pass("simplify", s, [](const ir::Stmt& x) { return simplify(x); });
  run_pass("unroll_loop", s, unroll_loop);
  f.body = s;
  return f;
}

ir::PrimFunc finish_lowering(ir::PrimFunc f, Backend backend) {
  ir::Stmt s = f.body;
  if (!s.defined()) return f;
  if (backend == Backend::LLVM) {
    run_pass("vectorize_loop", s, vectorize_loop);
    run_pass("storage_rewrite", s, storage_rewrite);
    run_pass("expand_unrolled", s, [](const ir::Stmt& x) { return expand_unrolled(x, kMaxUnrolledStoresLLVM); });
    run_pass("simplify", s, [](const ir::Stmt& x) { return simplify(x); });
    run_pass("common_subexpr_elim", s, common_subexpr_elim);
    run_pass("lower_floor_div_mod", s, lower_floor_div_mod);
    run_pass("swap_broadcast_cast", s, swap_broadcast_cast);
  } else {
    run_pass("expand_unrolled", s, [](const ir::Stmt& x) { return expand_unrolled(x, kMaxUnrolledStoresC); });
    run_pass("lift_guards", s, lift_guards);
    run_pass("hoist_guard_bounds", s, hoist_guard_bounds);
  }
  f.body = s;
  return f;
}

ir::PrimFunc lower(const dag::ComputeDAG& dag, const std::vector<schedule::Step>& steps, Backend backend,
                   LayoutRewrite layout_rewrite) {
  if (std::optional<RewrittenLayout> r = rewrite_layout(dag, steps, layout_rewrite)) {
    spdlog::debug("lower: after rewrite_layout: {} steps", r->steps.size());
    return finish_lowering(lower(dag::ComputeDAG(r->tensors), r->steps), backend);
  }
  return finish_lowering(lower(dag, steps), backend);
}

}  // namespace mrd::lower
