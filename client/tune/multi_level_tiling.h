// The two tiling transformations of the CPU sketches, as TVM's DoMultiLevelTiling and
// FollowTiling. Multi-level tiling splits each spatial iterator of a stage into one piece per
// 'S' of the structure and each reduction iterator into one per 'R', then reorders the pieces
// level by level: "SSRSRS" gives i0 j0 i1 j1 k0 i2 j2 k1 i3 j3. Follow tiling splits a
// consumer's iterators with FSP steps that copy the first levels of those splits.
#pragma once

#include <string>
#include <vector>

#include "client/tune/search_state.h"

namespace mrd::tune {

/// TVM's CPU multi-level tiling structure.
inline constexpr const char* kCpuTilingStructure = "SSRSRS";

/// Tiles stage_id (split lengths are placeholders of 1 until the tile sizes are sampled).
/// Appends the index of each spatial split step to spatial_split_step_ids.
SearchState multi_level_tiling(const SearchState& st, int stage_id, const std::string& structure,
                               std::vector<int>* spatial_split_step_ids);

/// Splits every iterator of stage_id (an element-wise consumer of a tiled stage) with
/// FSP(split_step_ids[k], n_split), then reorders the pieces level by level.
SearchState follow_tiling(const SearchState& st, int stage_id,
                          const std::vector<int>& split_step_ids, int n_split);

}  // namespace mrd::tune
