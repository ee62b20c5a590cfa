// Where a stage that is neither tiled nor in need of tiling may be computed, as TVM's
// GetSingleConsumerId and GetComputeLocationCandidates: the loops of its single consumer (or
// common root of its consumers) down to the first reduction or inner tile, and, when that
// consumer is itself computed at another stage, that stage's outer loops.
#pragma once

#include <utility>
#include <vector>

#include "client/tune/access_analysis.h"
#include "client/tune/search_state.h"

namespace mrd::tune {

/// The single consumer of stage_id (or the common root stage of all its consumers), or -1.
int single_consumer_id(const SearchState& st, const AccessAnalysis& aa, int stage_id);

/// How loops of extent 1 are recognised (and skipped) among the candidates.
enum class KnownExtents {
  /// Only unsplit loops have a known extent: in TVM's initial sampling, the pieces of a
  /// sketch's splits have no range yet.
  RootsOnly,
  /// Every loop's extent follows from the split lengths (a replayed, concrete state).
  All,
};

/// (target stage, target iterator) pairs stage_id may be computed at.
std::vector<std::pair<int, int>> compute_location_candidates(const SearchState& st,
                                                             const AccessAnalysis& aa, int stage_id,
                                                             KnownExtents known);

}  // namespace mrd::tune
