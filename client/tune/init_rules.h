// The rules that turn a sketch into a concrete, random schedule, as TVM's InitPopulation rules
// for CPU, applied in this order: fill tile sizes (random factorizations of each split's
// extent), change compute locations (inline, root or at a loop of the consumer, for stages
// that are not tiled), parallel (fuse outer spatial loops of root stages until they exceed
// cores x 16 iterations, then parallelize), unroll (`auto_unroll_max_step$N` on stages with a
// reduction) and vectorization (fuse inner spatial loops up to 16 lanes).
#pragma once

#include "client/tune/random.h"
#include "client/tune/search_state.h"
#include "client/tune/split_factorization.h"

namespace mrd::tune {

/// TVM's auto_unroll_configs for CPU.
inline constexpr int kAutoUnrollConfigs[] = {0, 16, 64, 512};
/// TVM's max_vectorize_size.
inline constexpr int64_t kMaxVectorizeSize = 16;

/// Each rule returns false when the state became invalid (a schedule primitive refused, or
/// bound inference failed); the state is then to be dropped.
bool init_fill_tile_size(SearchState& st, Rng& rng, SplitFactorization& memo);
bool init_change_compute_location(SearchState& st, Rng& rng);
bool init_parallel(SearchState& st, int num_cores);
bool init_unroll(SearchState& st, Rng& rng);
bool init_vectorization(SearchState& st, Rng& rng);

/// All five in order on a copy of `sketch`; false when a rule failed.
bool apply_init_rules(SearchState& st, Rng& rng, SplitFactorization& memo, int num_cores);

}  // namespace mrd::tune
