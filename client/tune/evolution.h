// The search loop's proposal step, after TVM's EvolutionarySearch: a population of the best
// measured states and fresh samples from the sketches evolves for a few generations, scored
// by the cost model (cost_model.h, fitted on the measured states): each generation's
// children are mutants of members picked by a tournament of two on predicted cost. The batch
// takes the unseen states predicted fastest over all generations, plus a share of fresh random
// samples for exploration, a larger share while few states are measured (the model has seen
// too little to be trusted much). A proposal is always valid (it lowers) and never a state already
// seen (keys in `seen`) or twice in the batch.
#pragma once

#include <functional>
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
  /// States the model scores in each generation.
  int population_size = 512;
  /// How many of the best measured states seed the population (the rest are fresh samples).
  int measured_parents = 64;
  /// Generations of mutants after the initial population.
  int generations = 4;
  /// Share of each batch sampled fresh from the sketches, unranked.
  double random_fraction = 0.1;
  /// The share instead while fewer than `warmup_measured` states are measured.
  double warmup_random_fraction = 0.3;
  int warmup_measured = 128;
  /// The cost model weights each measured state by its relative throughput (cost_model.h).
  bool weight_by_throughput = true;
  /// Tries per wanted child before a generation stops short.
  int attempts_per_child = 4;
};

/// How many of a batch of n are fresh random samples when `measured` states are measured: all
/// with none measured, else the (warm-up) random share of n, at least 1 when n > 1.
int random_share(int n, size_t measured, const EvolutionOptions& options);

class EvolutionarySearch {
 public:
  EvolutionarySearch(const dag::ComputeDAG& dag, std::vector<SearchState> sketches, int num_cores,
                     uint64_t seed, EvolutionOptions options = {});

  /// Up to n new valid states. `measured` are the successful measured states (any order);
  /// with none, the batch is all random samples. Fewer than n when the space is exhausted.
  std::vector<SearchState> propose(const std::vector<MeasuredState>& measured, int n,
                                   const std::set<std::string>& seen);

 private:
  /// Up to n unseen states (is_new) predicted fastest over the generations.
  std::vector<SearchState> evolve(const std::vector<MeasuredState>& measured, int n,
                                  const std::function<bool(const std::string&)>& is_new);

  const dag::ComputeDAG* dag_;
  std::vector<SearchState> sketches_;
  int num_cores_;
  EvolutionOptions options_;
  Rng rng_;
  SplitFactorization memo_;
  CostModel model_;
};

}  // namespace mrd::tune
