#include "client/tune/tuner.h"

#include <algorithm>
#include <limits>

#include "client/tune/evolution.h"
#include "common/dag/flop_count.h"
#include "common/util/error.h"

namespace mrd::tune {

double mean_cost(const measure::MeasureResult& r) {
  if (r.error_no != measure::MeasureErrorNo::NoError || r.costs.empty()) {
    return std::numeric_limits<double>::infinity();
  }
  double sum = 0;
  for (double c : r.costs) sum += c;
  return sum / static_cast<double>(r.costs.size());
}

Tuner::Tuner(const dag::ComputeDAG& dag, TuneOptions options)
    : dag_(&dag),
      options_(options),
      num_cores_(resolve_num_cores(options.num_cores)),
      flops_(dag::flop_count(dag)),
      sketches_(generate_sketch_states(dag, num_cores_)),
      search_(std::make_unique<EvolutionarySearch>(dag, sketches_, num_cores_, options.seed)) {
  MRD_USER_CHECK(options_.batch_size > 0, "batch size must be positive, got ", options_.batch_size);
  MRD_USER_CHECK(options_.trials >= 0, "trials must not be negative, got ", options_.trials);
}

Tuner::~Tuner() = default;

void Tuner::remember(const TuneRecord& r) {
  seen_.insert(candidate_key(r.candidate.steps));
  records_.push_back(r);
  double c = mean_cost(r.result);
  if (c < std::numeric_limits<double>::infinity() &&
      (best_index_ < 0 || c < mean_cost(records_[best_index_].result))) {
    best_index_ = static_cast<int>(records_.size()) - 1;
  }
}

void Tuner::add_history(const std::vector<TuneRecord>& records) {
  for (const TuneRecord& r : records) remember(r);
}

const TuneRecord* Tuner::best() const {
  return best_index_ < 0 ? nullptr : &records_[best_index_];
}

double Tuner::best_gflops() const {
  const TuneRecord* b = best();
  if (b == nullptr || flops_ <= 0) return 0.0;
  return flops_ / mean_cost(b->result) / 1e9;
}

std::vector<TuneRecord> Tuner::run(Measurer& m,
                                   const std::function<void(const TuneProgress&)>& on_progress) {
  std::vector<TuneRecord> out;
  stopped_by_measurer_ = false;
  int done = 0;
  while (done < options_.trials) {
    int n = std::min(options_.batch_size, options_.trials - done);
    std::vector<MeasuredState> measured;
    for (const TuneRecord& r : records_) {
      double c = mean_cost(r.result);
      if (c < std::numeric_limits<double>::infinity()) measured.push_back({r.candidate.steps, c});
    }
    std::vector<SearchState> proposals = search_->propose(measured, n, seen_);
    if (proposals.empty()) break;
    std::vector<Candidate> batch;
    for (const SearchState& s : proposals) batch.push_back({s.steps()});
    std::vector<measure::MeasureResult> results = m.measure(batch);
    MRD_CHECK(results.size() <= batch.size(), "the measurer returned ", results.size(),
              " results for ", batch.size(), " candidates");
    for (size_t i = 0; i < results.size(); ++i) {
      TuneRecord r{std::move(batch[i]), std::move(results[i])};
      remember(r);
      out.push_back(std::move(r));
    }
    done += static_cast<int>(results.size());
    if (on_progress && !results.empty()) on_progress(TuneProgress{done, best_gflops()});
    if (results.size() < batch.size()) {
      stopped_by_measurer_ = true;
      break;
    }
  }
  return out;
}

}  // namespace mrd::tune
