// What the lowering passes share while a schedule becomes a PrimFunc: the schedule, each
// stage's body with inlined stages substituted, the inferred range of every iterator, and
// the range of every loop variable.
#pragma once

#include <unordered_map>

#include "common/dag/compute_dag.h"
#include "common/ir/stmt.h"
#include "common/lower/arith.h"
#include "common/schedule/te_schedule.h"

namespace mrd::lower {

/// An iterator's range: [min, min + extent). min is symbolic for the roots of attached stages
/// (it depends on the loops around the attach point); extent is always a constant.
struct IterRange {
  ir::Expr min;
  int64_t extent = 0;
};

struct LowerContext {
  const dag::ComputeDAG* dag = nullptr;
  schedule::Schedule sch;
  /// Body of each computed (not inlined) compute stage, inlined stages substituted.
  std::unordered_map<const schedule::Stage*, ir::Expr> bodies;
  std::unordered_map<const schedule::IterVarNode*, IterRange> ranges;
  /// [0, extent - 1] of every iterator variable of a computed stage.
  VarRanges loop_ranges;
  /// The buffer each computed stage writes, before binding to arguments and allocations.
  std::unordered_map<const schedule::Stage*, ir::Buffer> stage_buffers;
};

/// True for stages that become loop nests (compute stages not inlined).
inline bool is_computed(const schedule::Stage& s) {
  return !s.is_placeholder() && s.attach != schedule::AttachKind::Inline;
}

}  // namespace mrd::lower
