// The search loop's proposal step: keep the best measured states as the population, and
// propose a batch of new states, most of them mutants of population members (better members
// are picked more often: tournament of two), the rest fresh random samples from the sketches
// for exploration. As TVM ranks its evolutionary search with a learned cost model, many more
// mutants than wanted are made and the cost model (cost_model.h, fitted on the measured
// states) keeps those predicted fastest. A proposal is always valid (it lowers) and never a
// state already seen (keys in `seen`) or twice in the batch.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "client/tune/cost_model.h"
#include "client/tune/random.h"
#include "client/tune/search_state.h"
#include "client/tune/split_factorization.h"

namespace mrd::tune {

/// A measured state and its mean cost in seconds.
struct MeasuredState {
  std::vector<schedule::Step> steps;
  double cost = 0.0;
};

struct EvolutionOptions {
  /// How many of the best measured states form the population.
  int population_size = 16;
  /// Share of each batch sampled fresh from the sketches.
  double random_fraction = 0.2;
  /// Tries per wanted mutant before giving up on mutants for this batch.
  int attempts_per_mutant = 16;
  /// Mutants made per mutant wanted, for the cost model to choose from (1: no model).
  int oversample = 8;
};

class EvolutionarySearch {
 public:
  EvolutionarySearch(const dag::ComputeDAG& dag, std::vector<SearchState> sketches, int num_cores,
                     uint64_t seed, EvolutionOptions options = {});

  /// Up to n new valid states. `measured` are the successful measured states (any order);
  /// with none, the batch is all random samples. Fewer than n when the space is exhausted.
  std::vector<SearchState> propose(const std::vector<MeasuredState>& measured, int n,
                                   const std::set<std::string>& seen);

 private:
  const dag::ComputeDAG* dag_;
  std::vector<SearchState> sketches_;
  int num_cores_;
  EvolutionOptions options_;
  Rng rng_;
  SplitFactorization memo_;
  CostModel model_;
};

}  // namespace mrd::tune
