// The tuner behind `measurer tune`: sketch generation, random sampling and evolutionary search
// over a task's schedules, with the measurement behind the Measurer seam (the client library
// in production, a fake in tests). Every candidate sent lowers, and no state is measured twice
// (also across --resume: states from a log are known as measured).
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
  virtual ~Measurer() = default;
  virtual std::vector<measure::MeasureResult> measure(const std::vector<Candidate>& batch) = 0;
};

struct TuneOptions {
  int trials = 200;     ///< measurements in one run()
  int batch_size = 64;  ///< candidates per measure() call
  uint64_t seed = 1;    ///< the whole search is a function of the seed and the results
  int num_cores = 0;    ///< TVM's hardware num_cores; 0 = this machine's
};

struct TuneRecord {
  Candidate candidate;
  measure::MeasureResult result;
};

struct TuneProgress {
  int trials_done;     ///< measurements made by this run() so far
  double best_gflops;  ///< of the best state known (history included); 0 when none succeeded
};

/// The mean of a successful result's costs, or +infinity for a failed or empty one.
double mean_cost(const measure::MeasureResult& r);

class EvolutionarySearch;

class Tuner {
 public:
  /// `dag` must outlive the tuner.
  Tuner(const dag::ComputeDAG& dag, TuneOptions options);
  ~Tuner();

  /// Measured states (e.g. from a record log for --resume): they seed the population and are
  /// never measured again. Records whose steps do not apply are kept only as "seen".
  void add_history(const std::vector<TuneRecord>& records);
  /// Measures up to options.trials new states in batches; returns this run's records in
  /// measurement order. Stops early when no new valid state can be found, or when the
  /// measurer returns fewer results than candidates (see stopped_by_measurer()).
  std::vector<TuneRecord> run(Measurer& m,
                              const std::function<void(const TuneProgress&)>& on_progress = {});
  /// Lowest mean cost among successful results (history included), or nullptr.
  const TuneRecord* best() const;
  /// True when the last run() stopped because the measurer returned a short batch.
  bool stopped_by_measurer() const { return stopped_by_measurer_; }
  /// The sketches the search samples from.
  const std::vector<SearchState>& sketches() const { return sketches_; }

 private:
  void remember(const TuneRecord& r);
  double best_gflops() const;

  const dag::ComputeDAG* dag_;
  TuneOptions options_;
  int num_cores_;
  double flops_;
  std::vector<SearchState> sketches_;
  std::unique_ptr<EvolutionarySearch> search_;
  std::vector<TuneRecord> records_;  // history, then every measurement of every run
  std::set<std::string> seen_;
  int best_index_ = -1;
  bool stopped_by_measurer_ = false;
};

}  // namespace mrd::tune
