#include "client/tune/init_population.h"

#include <set>

#include "client/tune/init_rules.h"
#include "client/tune/sketch.h"
#include "client/tune/validity.h"

namespace mrd::tune {

std::vector<SearchState> sample_states(const std::vector<SearchState>& sketches, int n, Rng& rng,
                                       SplitFactorization& memo, int num_cores,
                                       const std::function<bool(const std::string&)>& is_new) {
  std::vector<SearchState> out;
  if (sketches.empty() || n <= 0) return out;
  std::set<std::string> keys;
  const int max_attempts = 8 * n + 32;
  for (int attempt = 0; attempt < max_attempts && static_cast<int>(out.size()) < n; ++attempt) {
    SearchState st = sketches[rand_index(rng, sketches.size())];
    if (!apply_init_rules(st, rng, memo, num_cores)) continue;
    std::string key = candidate_key(st.steps());
    if (keys.count(key) || (is_new && !is_new(key))) continue;
    if (!lowers(st.dag(), st.steps())) continue;
    keys.insert(key);
    out.push_back(std::move(st));
  }
  return out;
}

std::vector<Candidate> sample_initial_population(const dag::ComputeDAG& dag, int n, uint64_t seed,
                                                 int num_cores) {
  int cores = resolve_num_cores(num_cores);
  std::vector<SearchState> sketches = generate_sketch_states(dag, cores);
  Rng rng(seed);
  SplitFactorization memo;
  std::vector<Candidate> out;
  for (const SearchState& s : sample_states(sketches, n, rng, memo, cores, {})) {
    out.push_back({s.steps()});
  }
  return out;
}

}  // namespace mrd::tune
