// A schedule in the manner of TVM's te::Schedule, the thing auto_scheduler's transform steps
// edit: one Stage per operation (in ComputeDAG stage order), each with its root iterators
// (axis then reduce_axis), the split/fuse relations between iterators, the current leaf
// (loop) order, where the stage is computed (root, inline, or at a loop of another stage),
// and loop annotations. Iterators are objects: a stage's iterator ids index leaf_iters.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "common/dag/compute_dag.h"
#include "common/ir/operation.h"
#include "common/ir/stmt.h"
#include "common/schedule/transform_steps.h"

namespace mrd::schedule {

/// An iterator of a stage. Root iterators use the op's axis variable and know its domain;
/// split and fuse results get fresh variables.
struct IterVarNode {
  ir::Var var = ir::Var("");
  ir::IterKind kind = ir::IterKind::DataPar;
  int64_t dom_min = 0;     // roots only
  int64_t dom_extent = 0;  // roots only
  const std::string& name() const { return var.name(); }
};
using IterVarRef = std::shared_ptr<IterVarNode>;

/// parent = outer * extent(inner) + inner. Exactly one of factor / nparts is set (> 0).
struct SplitRelation {
  IterVarRef parent, outer, inner;
  int64_t factor = 0;
  int64_t nparts = 0;
};
/// outer = fused / extent(inner), inner = fused % extent(inner).
struct FuseRelation {
  IterVarRef outer, inner, fused;
};
using Relation = std::variant<SplitRelation, FuseRelation>;

enum class AttachKind : uint8_t { Root, Inline, At };

struct Stage {
  /// What the stage computes.
  ir::Operation op;
  /// The tensor the stage writes: op itself, or the original op that cache_write / rfactor
  /// replaced (readers and function arguments still name the original).
  ir::Operation origin;
  std::vector<IterVarRef> root_iters;
  std::vector<IterVarRef> leaf_iters;
  std::vector<Relation> relations;
  AttachKind attach = AttachKind::Root;
  Stage* attach_stage = nullptr;
  IterVarRef attach_iter;
  /// Index of the step that set the attachment (for error messages), -1 if none.
  int attach_step = -1;
  std::unordered_map<const IterVarNode*, IterAnnotation> annotations;
  std::unordered_map<const IterVarNode*, int64_t> auto_unroll_max_step;
  ir::MemScope scope = ir::MemScope::Global;

  bool is_placeholder() const { return op->is_placeholder(); }
  /// Position of iv among the leaves, or -1.
  int leaf_index(const IterVarNode* iv) const;
};
using StageRef = std::shared_ptr<Stage>;

/// Creates a stage for op with fresh root iterators (op's axis, then reduce_axis).
StageRef make_stage(ir::Operation op, ir::Operation origin);

struct Schedule {
  /// One stage per op, in stage-id order (CHW and RF insert stages).
  std::vector<StageRef> stages;
  /// The workload's tensors (function arguments), in order.
  std::vector<ir::Tensor> params;

  /// The initial schedule of a DAG: every op its own root stage, no transformations.
  static Schedule create(const dag::ComputeDAG& dag);
  /// The stage producing `op` (an original op or a stage's own op), or nullptr.
  Stage* producer_of(const ir::OperationNode* op) const;
  int stage_index(const Stage* s) const;
  /// True if `op` is one of the function arguments.
  bool is_param(const ir::OperationNode* op) const;
};

/// Most iterators one stage may have (bounds the depth of its loop nest).
inline constexpr size_t kMaxStageIters = 256;
/// Most stages a schedule may have (cache_write and rfactor add stages).
inline constexpr size_t kMaxStages = 1024;

// Schedule primitives, as te::Stage's. They throw UserError for an invalid request.

/// Splits leaf `iter_id` by `lengths` (outer→inner); returns the new leaves outer→inner.
/// Stages computed at the split iterator move to its outermost piece (as the auto_scheduler
/// state's attach map does).
std::vector<IterVarRef> split(Schedule& sch, Stage& s, int iter_id,
                              const std::vector<int64_t>& lengths, bool inner_to_outer);
/// Fuses consecutive leaves (ids ascending by one); returns the fused iterator.
IterVarRef fuse(Schedule& sch, Stage& s, const std::vector<int>& ids);
void reorder(Stage& s, const std::vector<int>& order);
void compute_at(Stage& s, Stage& target, int target_iter_id);
void compute_root(Stage& s);
void compute_inline(Schedule& sch, Stage& s);
/// Inserts `<op>.<scope>` before stage `stage_id`; returns its index.
int cache_write(Schedule& sch, int stage_id, const std::string& scope);
/// Factors leaf `iter_id` (a reduction iterator) of stage `stage_id` out into `<op>.rf`,
/// inserted before the stage, which becomes `<op>.repl`. Returns the rf stage's index.
int rfactor(Schedule& sch, int stage_id, int iter_id, int factor_axis);

}  // namespace mrd::schedule
