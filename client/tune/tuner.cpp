#include "client/tune/tuner.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>

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

const char* tune_phase_name(TunePhase phase) {
  switch (phase) {
    case TunePhase::SketchGeneration:
      return "sketch generation";
    case TunePhase::Evolution:
      return "evolution";
    case TunePhase::Measuring:
      return "measuring";
    case TunePhase::Confirming:
      return "confirming";
  }
  return "?";
}

Tuner::Tuner(const dag::ComputeDAG& dag, TuneOptions options, TuneObserver* observer)
    : dag_(&dag), options_(options), observer_(observer) {
  MRD_USER_CHECK(options_.batch_size > 0, "batch size must be positive, got ", options_.batch_size);
  MRD_USER_CHECK(options_.trials >= 0, "trials must not be negative, got ", options_.trials);
  progress_.trials_total = options_.trials;
  enter(TunePhase::SketchGeneration);
  num_cores_ = resolve_num_cores(options.num_cores);
  flops_ = dag::flop_count(dag);
  sketches_ = generate_sketch_states(dag, num_cores_);
  search_ = std::make_unique<EvolutionarySearch>(dag, sketches_, num_cores_, options.seed);
}

void Tuner::enter(TunePhase phase) {
  progress_.phase = phase;
  if (observer_) observer_->on_phase(progress_);
}

Tuner::~Tuner() = default;

void Tuner::remember(const TuneRecord& r) {
  std::string key = candidate_key(r.candidate.steps);
  seen_.insert(key);
  records_.push_back(r);
  is_latest_.push_back(true);
  const int index = static_cast<int>(records_.size()) - 1;
  bool was_best = false;
  const bool measured = mean_cost(r.result) < std::numeric_limits<double>::infinity();
  auto it = latest_.find(key);
  if (it == latest_.end()) {
    latest_.emplace(std::move(key), index);
  } else if (!measured && mean_cost(records_[it->second].result) < std::numeric_limits<double>::infinity()) {
    // A failed re-measure says nothing about the state's cost: its last result stands.
    is_latest_.back() = false;
    return;
  } else {
    is_latest_[it->second] = false;
    was_best = it->second == static_cast<size_t>(best_index_);
    it->second = index;
  }
  if (was_best) {
    // The best state was measured again: the best is the cheapest latest record.
    best_index_ = -1;
    for (size_t i : latest_measured()) {
      if (best_index_ < 0 || mean_cost(records_[i].result) < mean_cost(records_[best_index_].result))
        best_index_ = static_cast<int>(i);
    }
    return;
  }
  double c = mean_cost(r.result);
  if (c < std::numeric_limits<double>::infinity() &&
      (best_index_ < 0 || c < mean_cost(records_[best_index_].result))) {
    best_index_ = index;
  }
}

void Tuner::add_history(const std::vector<TuneRecord>& records) {
  for (const TuneRecord& r : records) remember(r);
}

std::vector<size_t> Tuner::latest_measured() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < records_.size(); ++i)
    if (is_latest_[i] && mean_cost(records_[i].result) < std::numeric_limits<double>::infinity()) out.push_back(i);
  return out;
}

const TuneRecord* Tuner::best() const {
  return best_index_ < 0 ? nullptr : &records_[best_index_];
}

double Tuner::gflops(const measure::MeasureResult& r) const {
  double c = mean_cost(r);
  if (flops_ <= 0 || !(c < std::numeric_limits<double>::infinity())) return 0.0;
  return flops_ / c / 1e9;
}

double Tuner::best_gflops() const {
  const TuneRecord* b = best();
  return b == nullptr ? 0.0 : gflops(b->result);
}

std::vector<measure::MeasureResult> Tuner::measure_batch(Measurer& m,
                                                       const std::vector<Candidate>& batch,
                                                       bool again) {
  size_t reported = 0;
  auto count = [&](size_t index, const measure::MeasureResult& r) {
    MRD_CHECK(index == reported && index < batch.size(), "the measurer reported result ", index,
              " after ", reported, " of a batch of ", batch.size());
    ++reported;
    if (again) return;  // a confirmation is not a trial
    ++progress_.trials_done;
    progress_.errors += r.error_no != measure::MeasureErrorNo::NoError;
    progress_.best_gflops = std::max(progress_.best_gflops, gflops(r));
    if (observer_) observer_->on_result(progress_);
  };
  m.set_result_sink(count);
  std::vector<measure::MeasureResult> results = again ? m.measure_again(batch) : m.measure(batch);
  m.set_result_sink(nullptr);
  MRD_CHECK(results.size() <= batch.size(), "the measurer returned ", results.size(),
            " results for ", batch.size(), " candidates");
  MRD_CHECK(reported <= results.size(), "the measurer reported ", reported,
            " results and returned ", results.size());
  for (size_t i = reported; i < results.size(); ++i) count(i, results[i]);
  return results;
}

size_t Tuner::measure_and_keep(Measurer& m, std::vector<Candidate> batch, bool again,
                               std::vector<TuneRecord>& into) {
  std::vector<measure::MeasureResult> results = measure_batch(m, batch, again);
  for (size_t i = 0; i < results.size(); ++i) {
    TuneRecord r{std::move(batch[i]), std::move(results[i])};
    remember(r);
    into.push_back(std::move(r));
  }
  progress_.best_gflops = best_gflops();
  if (observer_ && !results.empty()) observer_->on_batch_done(progress_);
  if (results.size() < batch.size()) stopped_by_measurer_ = true;
  return results.size();
}

std::vector<TuneRecord> Tuner::run(Measurer& m) {
  std::vector<TuneRecord> out;
  stopped_by_measurer_ = false;
  confirmations_.clear();
  progress_ = TuneProgress{};
  progress_.trials_total = options_.trials;
  progress_.best_gflops = best_gflops();
  int done = 0;
  while (done < options_.trials) {
    int n = std::min(options_.batch_size, options_.trials - done);
    ++progress_.batch;
    progress_.batch_size = 0;
    enter(TunePhase::Evolution);
    std::vector<MeasuredState> measured;
    for (size_t i : latest_measured()) measured.push_back({records_[i].candidate.steps, mean_cost(records_[i].result)});
    std::vector<SearchState> proposals = search_->propose(measured, n, seen_);
    if (proposals.empty()) break;
    std::vector<Candidate> batch;
    for (const SearchState& s : proposals) batch.push_back({s.steps()});
    progress_.batch_size = static_cast<int>(batch.size());
    enter(TunePhase::Measuring);
    done += static_cast<int>(measure_and_keep(m, std::move(batch), false, out));
    if (stopped_by_measurer_) break;
  }
  if (!stopped_by_measurer_) confirm_best(m);
  return out;
}

void Tuner::confirm_best(Measurer& m) {
  if (options_.confirm_top <= 0) return;
  constexpr double kUnmeasured = std::numeric_limits<double>::infinity();
  std::set<std::string> confirmed;  // candidate keys measured again in this run
  double cheapest_confirmed = kUnmeasured;
  for (int round = 0; round < kConfirmRounds; ++round) {
    // The latest records of the successful states not confirmed yet, cheapest first (ties:
    // the earlier record); after the first round only those cheaper than every confirmed
    // state: when the best states got slower measured again, the best is now one that was
    // measured once, and it is confirmed in turn.
    std::vector<size_t> top;
    for (size_t i : latest_measured()) {
      if (mean_cost(records_[i].result) < cheapest_confirmed &&
          !confirmed.count(candidate_key(records_[i].candidate.steps)))
        top.push_back(i);
    }
    std::stable_sort(top.begin(), top.end(), [&](size_t a, size_t b) {
      return mean_cost(records_[a].result) < mean_cost(records_[b].result);
    });
    if (top.size() > static_cast<size_t>(options_.confirm_top)) top.resize(options_.confirm_top);
    if (top.empty()) return;
    std::vector<Candidate> batch;
    for (size_t i : top) batch.push_back(records_[i].candidate);
    ++progress_.batch;
    progress_.batch_size = static_cast<int>(batch.size());
    enter(TunePhase::Confirming);
    const size_t first = confirmations_.size();
    measure_and_keep(m, std::move(batch), true, confirmations_);
    for (size_t i = first; i < confirmations_.size(); ++i)
      confirmed.insert(candidate_key(confirmations_[i].candidate.steps));
    if (stopped_by_measurer_) return;
    cheapest_confirmed = kUnmeasured;
    for (const std::string& key : confirmed)
      cheapest_confirmed = std::min(cheapest_confirmed, mean_cost(records_[latest_.at(key)].result));
  }
}

}  // namespace mrd::tune
