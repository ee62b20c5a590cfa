#include "client/tune/evolution.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "client/tune/candidate.h"
#include "client/tune/init_population.h"
#include "client/tune/mutation.h"
#include "client/tune/validity.h"
#include "common/util/error.h"

namespace mrd::tune {

EvolutionarySearch::EvolutionarySearch(const dag::ComputeDAG& dag,
                                       std::vector<SearchState> sketches, int num_cores,
                                       uint64_t seed, EvolutionOptions options)
    : dag_(&dag),
      sketches_(std::move(sketches)),
      num_cores_(num_cores),
      options_(options),
      rng_(seed) {}

std::vector<SearchState> EvolutionarySearch::propose(const std::vector<MeasuredState>& measured,
                                                     int n, const std::set<std::string>& seen) {
  std::vector<SearchState> out;
  if (n <= 0) return out;
  std::set<std::string> batch;
  auto is_new = [&](const std::string& key) { return !seen.count(key) && !batch.count(key); };

  // The population: the best measured states, cheapest first (stable for equal costs).
  std::vector<const MeasuredState*> ranked;
  for (const MeasuredState& m : measured) ranked.push_back(&m);
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const MeasuredState* a, const MeasuredState* b) { return a->cost < b->cost; });
  std::vector<SearchState> population;
  for (const MeasuredState* m : ranked) {
    if (static_cast<int>(population.size()) >= options_.population_size) break;
    try {
      population.emplace_back(*dag_, m->steps);
    } catch (const UserError&) {
      // A logged state that no longer applies cannot be a parent.
    }
  }

  int n_mutants = 0;
  if (!population.empty()) {
    int n_random = static_cast<int>(std::floor(n * options_.random_fraction));
    if (n > 1 && options_.random_fraction > 0) n_random = std::max(n_random, 1);
    n_mutants = n - n_random;
  }
  // Mutants; population[i] is better than population[j] for i < j, so the smaller of two
  // random indices wins the tournament. More are made than wanted; the model ranks them.
  const int oversample = std::max(1, options_.oversample);
  const int wanted = n_mutants * oversample;
  const int max_attempts = wanted * options_.attempts_per_mutant;
  std::vector<std::pair<double, SearchState>> mutants;
  std::set<std::string> made;
  std::vector<std::pair<std::vector<schedule::Step>, double>> training;
  for (const MeasuredState& m : measured) training.emplace_back(m.steps, m.cost);
  model_.fit(training);
  for (int attempt = 0; attempt < max_attempts && static_cast<int>(mutants.size()) < wanted; ++attempt) {
    size_t a = rand_index(rng_, population.size());
    size_t b = rand_index(rng_, population.size());
    std::optional<SearchState> child = mutate(population[std::min(a, b)], rng_, memo_);
    // Sometimes mutate twice, to leave a local optimum.
    if (child && rand_index(rng_, 4) == 0) {
      if (auto again = mutate(*child, rng_, memo_)) child = std::move(again);
    }
    if (!child) continue;
    std::string key = candidate_key(child->steps());
    if (!is_new(key) || !made.insert(key).second) continue;
    double predicted = oversample > 1 ? model_.predict(child->steps()) : 0.0;
    mutants.emplace_back(predicted, std::move(*child));
  }
  // The predicted fastest first (stable: equal predictions keep the order they were made in).
  std::stable_sort(mutants.begin(), mutants.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [predicted, child] : mutants) {
    if (static_cast<int>(out.size()) >= n_mutants) break;
    if (!lowers(*dag_, child.steps())) continue;
    batch.insert(candidate_key(child.steps()));
    out.push_back(std::move(child));
  }
  // Fresh samples fill the rest.
  int want = n - static_cast<int>(out.size());
  for (SearchState& s : sample_states(sketches_, want, rng_, memo_, num_cores_, is_new)) {
    batch.insert(candidate_key(s.steps()));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace mrd::tune
