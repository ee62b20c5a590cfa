// Mutations of a measured state, as TVM's mutation rules for CPU, each returning the new step
// list (or nothing when the rule does not apply): tile size (move a factor from one level of a
// split to another, keeping the product), auto-unroll value, compute location (another
// candidate loop for a CA step), parallel granularity (how many outer loops the parallel fuse
// takes). mutate() picks a rule with TVM's weights (0.90, 0.04, 0.05, 0.01).
#pragma once

#include <optional>
#include <vector>

#include "client/tune/random.h"
#include "client/tune/search_state.h"
#include "client/tune/split_factorization.h"

namespace mrd::tune {

using Steps = std::vector<schedule::Step>;

std::optional<Steps> mutate_tile_size(const SearchState& st, Rng& rng, SplitFactorization& memo);
std::optional<Steps> mutate_auto_unroll(const SearchState& st, Rng& rng);
std::optional<Steps> mutate_compute_location(const SearchState& st, Rng& rng);
std::optional<Steps> mutate_parallel(const SearchState& st, Rng& rng);

/// One mutation chosen by weight; the result replays (its steps apply) but may not lower.
std::optional<SearchState> mutate(const SearchState& st, Rng& rng, SplitFactorization& memo);

}  // namespace mrd::tune
