// Random initial states, as TVM's SampleInitPopulation: pick a sketch at random, apply the
// init rules, keep the result if it lowers and is new.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "client/tune/candidate.h"
#include "client/tune/random.h"
#include "client/tune/search_state.h"
#include "client/tune/split_factorization.h"
#include "common/dag/compute_dag.h"

namespace mrd::tune {

/// Up to n valid states sampled from `sketches`, each with a key for which is_new(key) holds
/// and distinct from the others. Gives up after a bounded number of attempts (a small search
/// space may have fewer than n states).
std::vector<SearchState> sample_states(const std::vector<SearchState>& sketches, int n, Rng& rng,
                                       SplitFactorization& memo, int num_cores,
                                       const std::function<bool(const std::string&)>& is_new);

/// n random valid, distinct schedules of dag (fewer if the space is smaller); the same seed
/// gives the same list. num_cores 0 = this machine's.
std::vector<Candidate> sample_initial_population(const dag::ComputeDAG& dag, int n, uint64_t seed,
                                                 int num_cores);

}  // namespace mrd::tune
