#include "client/tune/evolution.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "client/tune/candidate.h"
#include "client/tune/init_population.h"
#include "client/tune/mutation.h"
#include "common/util/error.h"

namespace mrd::tune {

int random_share(int n, size_t measured, const EvolutionOptions& options) {
  if (measured == 0) return n;
  const double fraction = measured < static_cast<size_t>(std::max(options.warmup_measured, 0))
                              ? options.warmup_random_fraction
                              : options.random_fraction;
  int n_random = std::min(n, static_cast<int>(std::floor(n * fraction)));
  if (n > 1 && fraction > 0) n_random = std::max(n_random, 1);
  return n_random;
}

EvolutionarySearch::EvolutionarySearch(const dag::ComputeDAG& dag,
                                       std::vector<SearchState> sketches, int num_cores,
                                       uint64_t seed, EvolutionOptions options)
    : dag_(&dag),
      sketches_(std::move(sketches)),
      num_cores_(num_cores),
      options_(options),
      rng_(seed),
      model_(dag, options.weight_by_throughput) {}

std::vector<SearchState> EvolutionarySearch::propose(const std::vector<MeasuredState>& measured,
                                                     int n, const std::set<std::string>& seen) {
  std::vector<SearchState> out;
  if (n <= 0) return out;
  std::set<std::string> batch;
  auto is_new = [&](const std::string& key) { return !seen.count(key) && !batch.count(key); };

  const int n_ranked = n - random_share(n, measured.size(), options_);
  if (n_ranked > 0) {
    std::vector<std::pair<std::vector<schedule::Step>, double>> training;
    for (const MeasuredState& m : measured) training.emplace_back(m.steps, m.cost);
    model_.fit(training);
    for (SearchState& s : evolve(measured, n_ranked, is_new)) {
      batch.insert(candidate_key(s.steps()));
      out.push_back(std::move(s));
    }
  }
  // Fresh samples fill the rest.
  int want = n - static_cast<int>(out.size());
  for (SearchState& s : sample_states(sketches_, want, rng_, memo_, num_cores_, is_new)) {
    batch.insert(candidate_key(s.steps()));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<SearchState> EvolutionarySearch::evolve(
    const std::vector<MeasuredState>& measured, int n,
    const std::function<bool(const std::string&)>& is_new) {
  // The initial population: the best measured states, cheapest first (stable for equal
  // costs), then fresh samples.
  std::vector<const MeasuredState*> ranked;
  for (const MeasuredState& m : measured) ranked.push_back(&m);
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const MeasuredState* a, const MeasuredState* b) { return a->cost < b->cost; });
  std::vector<SearchState> population;
  for (const MeasuredState* m : ranked) {
    if (static_cast<int>(population.size()) >= options_.measured_parents) break;
    try {
      population.emplace_back(*dag_, m->steps);
    } catch (const UserError&) {
      // A logged state that no longer applies cannot be a parent.
    }
  }
  int fresh = options_.population_size - static_cast<int>(population.size());
  std::set<std::string> in_population;
  for (const SearchState& s : population) in_population.insert(candidate_key(s.steps()));
  for (SearchState& s : sample_states(sketches_, fresh, rng_, memo_, num_cores_, [&](const std::string& k) {
         return !in_population.count(k);
       })) {
    population.push_back(std::move(s));
  }

  // Every unseen state scored so far, by key: (predicted score, lower is faster; state).
  std::map<std::string, std::pair<double, SearchState>> found;
  for (int generation = 0;; ++generation) {
    std::vector<double> score(population.size());
    for (size_t i = 0; i < population.size(); ++i) {
      score[i] = model_.predict(population[i].steps());
      std::string key = candidate_key(population[i].steps());
      if (std::isfinite(score[i]) && is_new(key) && !found.count(key)) {
        found.emplace(std::move(key), std::make_pair(score[i], population[i]));
      }
    }
    if (generation == options_.generations || population.empty()) break;
    // Children: mutants of the winner of a tournament of two, scored next generation.
    std::vector<SearchState> children;
    std::set<std::string> made;
    const int wanted = std::max(options_.population_size, 2 * n);
    for (int attempt = 0; attempt < wanted * options_.attempts_per_child &&
                          static_cast<int>(children.size()) < wanted;
         ++attempt) {
      size_t a = rand_index(rng_, population.size());
      size_t b = rand_index(rng_, population.size());
      const SearchState& parent = score[a] <= score[b] ? population[a] : population[b];
      std::optional<SearchState> child = mutate(parent, rng_, memo_);
      if (!child || !made.insert(candidate_key(child->steps())).second) continue;
      children.push_back(std::move(*child));
    }
    if (children.empty()) break;
    population = std::move(children);
  }

  // The predicted fastest (ties keep key order, so a seed gives one answer).
  std::vector<std::pair<double, const std::string*>> order;
  for (const auto& [key, entry] : found) order.emplace_back(entry.first, &key);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<SearchState> out;
  for (const auto& [predicted, key] : order) {
    if (static_cast<int>(out.size()) >= n) break;
    out.push_back(found.at(*key).second);
  }
  return out;
}

}  // namespace mrd::tune
