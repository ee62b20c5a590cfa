// The tuner behind `measurer tune`: sketch generation, random sampling and evolutionary search
// over a task's schedules, with the measurement behind the Measurer seam (the client library
// in production, a fake in tests). Every candidate sent lowers, and no state is measured twice
// (also across --resume: states from a log are known as measured). After the trials, the few
// best states are measured again, more carefully (Measurer::measure_again), so that a lucky
// noisy measurement does not become the best: a state measured more than once is judged by its
// latest measurement. A TuneObserver follows the search as it goes: each phase as it starts,
// each result as it arrives, each batch's end.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "client/tune/candidate.h"
#include "client/tune/init_population.h"
#include "client/tune/sketch.h"
#include "common/dag/compute_dag.h"
#include "common/measure/measure_types.h"

namespace mrd::tune {

/// Measures a batch; returns one result per candidate, in order. A measurer that cannot go on
/// (its daemon went away) returns the results it has, a prefix of the batch: the tuner keeps
/// them and its run() stops there.
class Measurer {
 public:
  /// Takes the result of candidate `index` of the batch being measured.
  using ResultSink = std::function<void(size_t index, const measure::MeasureResult&)>;
  virtual ~Measurer() = default;
  virtual std::vector<measure::MeasureResult> measure(const std::vector<Candidate>& batch) = 0;
  /// Measures states already measured once more, to confirm the best (the tuner's last
  /// batch): like measure(), more carefully where the measurer can (more repeats).
  virtual std::vector<measure::MeasureResult> measure_again(const std::vector<Candidate>& batch) {
    return measure(batch);
  }
  /// Set by the tuner before each measure(). A measurer that learns its results one by one
  /// passes each to report_result() as it arrives, in order (0, 1, ...), exactly the results
  /// it then returns; results not reported are reported by the tuner when measure() returns.
  void set_result_sink(ResultSink sink) { sink_ = std::move(sink); }

 protected:
  void report_result(size_t index, const measure::MeasureResult& r) const {
    if (sink_) sink_(index, r);
  }

 private:
  ResultSink sink_;
};

struct TuneOptions {
  int trials = 200;     ///< measurements in one run()
  int batch_size = 64;  ///< candidates per measure() call
  uint64_t seed = 1;    ///< the whole search is a function of the seed and the results
  int num_cores = 0;    ///< TVM's hardware num_cores; 0 = this machine's
  /// After the trials, the best states measured again (not counted as trials); 0: none.
  int confirm_top = 4;
};

struct TuneRecord {
  Candidate candidate;
  measure::MeasureResult result;
};

enum class TunePhase {
  SketchGeneration,  ///< deriving the sketches from the DAG (in the Tuner's constructor)
  Evolution,         ///< sampling and evolving the next batch of candidates
  Measuring,         ///< the batch is being measured
  Confirming,        ///< the best states are being measured again (after the trials)
};
/// "sketch generation", "evolution", "measuring", "confirming".
const char* tune_phase_name(TunePhase phase);

struct TuneProgress {
  TunePhase phase = TunePhase::SketchGeneration;
  int trials_done = 0;     ///< measurements made by this run() so far
  int trials_total = 0;    ///< measurements this run() makes at most (options.trials)
  int errors = 0;          ///< of this run()'s measurements, those with an error
  double best_gflops = 0;  ///< of the best state known (history included); 0 when none succeeded
  int batch = 0;           ///< the batch being proposed or measured, from 1
  int batch_size = 0;      ///< its candidates (0 before they are proposed)
};

/// Follows a search. Calls come from the thread that runs the tuner.
class TuneObserver {
 public:
  virtual ~TuneObserver() = default;
  /// A phase starts.
  virtual void on_phase(const TuneProgress& p) {}
  /// A result arrived (p counts it).
  virtual void on_result(const TuneProgress& p) {}
  /// A batch's results are all in (or the measurer stopped in it).
  virtual void on_batch_done(const TuneProgress& p) {}
};

/// The mean of a successful result's costs, or +infinity for a failed or empty one.
double mean_cost(const measure::MeasureResult& r);

class EvolutionarySearch;

class Tuner {
 public:
  /// At most this many batches of confirmations after the trials (see run()).
  static constexpr int kConfirmRounds = 3;

  /// `dag` must outlive the tuner; so must `observer` (may be null), told of every phase.
  Tuner(const dag::ComputeDAG& dag, TuneOptions options, TuneObserver* observer = nullptr);
  ~Tuner();

  /// Measured states (e.g. from a record log for --resume): they seed the population and are
  /// never measured again. Records whose steps do not apply are kept only as "seen".
  void add_history(const std::vector<TuneRecord>& records);
  /// Measures up to options.trials new states in batches; returns this run's records in
  /// measurement order. Stops early when no new valid state can be found, or when the
  /// measurer returns fewer results than candidates (see stopped_by_measurer()). Unless it
  /// stopped that way, it then measures the options.confirm_top best states again
  /// (confirmations()); when that leaves a state measured only once as the best (the
  /// confirmed ones got slower), it confirms the states cheaper than every confirmed one, up
  /// to confirm_top at a time and kConfirmRounds rounds in all.
  std::vector<TuneRecord> run(Measurer& m);
  /// The last run()'s measurements of known states, after its trials, in order.
  const std::vector<TuneRecord>& confirmations() const { return confirmations_; }
  /// The successful state of lowest mean cost (history included), each state judged by its
  /// latest record without error; nullptr when there is none.
  const TuneRecord* best() const;
  /// True when the last run() stopped because the measurer returned a short batch.
  bool stopped_by_measurer() const { return stopped_by_measurer_; }
  /// The sketches the search samples from.
  const std::vector<SearchState>& sketches() const { return sketches_; }

 private:
  void remember(const TuneRecord& r);
  /// Measures the confirm_top best states again, in rounds (see run()).
  void confirm_best(Measurer& m);
  /// Runs one batch through the measurer (`again`: measure_again), reporting each result.
  std::vector<measure::MeasureResult> measure_batch(Measurer& m, const std::vector<Candidate>& batch,
                                                    bool again);
  /// measure_batch, then each result remembered and appended to `into` as a record, and the
  /// batch reported done; a short batch sets stopped_by_measurer_. Returns the results kept.
  size_t measure_and_keep(Measurer& m, std::vector<Candidate> batch, bool again,
                          std::vector<TuneRecord>& into);
  /// The latest successful record of each state, as indices in record order.
  std::vector<size_t> latest_measured() const;
  double best_gflops() const;
  double gflops(const measure::MeasureResult& r) const;
  /// Tells the observer that `progress_` is in `phase` now.
  void enter(TunePhase phase);

  const dag::ComputeDAG* dag_;
  TuneOptions options_;
  TuneObserver* observer_;
  TuneProgress progress_;
  int num_cores_;
  double flops_;
  std::vector<SearchState> sketches_;
  std::unique_ptr<EvolutionarySearch> search_;
  std::vector<TuneRecord> records_;  // history, then every measurement of every run
  std::set<std::string> seen_;
  std::map<std::string, size_t> latest_;  // state key -> index of its latest record
  std::vector<bool> is_latest_;           // per record: no later record of its state
  std::vector<TuneRecord> confirmations_;
  int best_index_ = -1;
  bool stopped_by_measurer_ = false;
};

}  // namespace mrd::tune
