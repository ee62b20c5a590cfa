// Questions the sketch, sampling and mutation rules ask about a search state, as TVM's
// search_policy/utils.h answers them: iterator extents (before and after bound inference),
// whether a stage is tiled or has a reduction, which stages are computed at which loop, and
// whether a stage was produced by cache_write.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "client/tune/search_state.h"

namespace mrd::tune {

/// Leaf extents of a stage from its root domains through its splits and fuses (the ranges of
/// an auto_scheduler State before InferBound): inner = min(factor, parent), outer = ceildiv.
std::vector<int64_t> static_leaf_extents(const schedule::Stage& s);

/// Leaf extents of every stage after bound inference (TVM's ComputeDAG::InferBound): an
/// attached stage's loops cover only the region its consumers need. Placeholders and inlined
/// stages get their static extents. UserError when the state does not lower.
std::vector<std::vector<int64_t>> inferred_leaf_extents(const SearchState& st);

bool is_reduce_iter(const schedule::IterVarNode& iv);
/// The stage has a reduction leaf iterator.
bool has_reduce_iter(const schedule::Stage& s);
/// The stage's loops are no longer its root iterators (TVM's IsTiled).
bool is_tiled(const schedule::Stage& s);

/// Stages computed at leaf `iter_id` of `stage_id`, ascending.
std::vector<int> attached_stages(const SearchState& st, int stage_id, int iter_id);
/// (target stage, target iterator) of a stage computed at a loop, or (-1, -1).
std::pair<int, int> attach_point(const SearchState& st, int stage_id);

/// Whether a cache_write step created stage `stage_id` (TVM's HasCacheWriteStage, following
/// the stage-id shifts of later cache_write and rfactor steps).
bool has_cache_write_stage(const std::vector<schedule::Step>& steps, int stage_id);

}  // namespace mrd::tune
