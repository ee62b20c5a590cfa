#include "client/tune/tuner.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>

#include "client/tune/validity.h"
#include "tests/unit/tune/tune_test_util.h"

namespace mrd::tune {
namespace {

using schedule::Step;
using testing::workload;

/// An analytic stand-in for the daemon: cost prefers inner tiles of 4 and middle tiles of 2 in
/// every 3-length split and an unroll limit of 64; states that unroll 512 "fail to compile".
/// It records every candidate it sees.
class FakeMeasurer : public Measurer {
 public:
  explicit FakeMeasurer(const dag::ComputeDAG& dag) : dag_(dag) {}

  std::vector<measure::MeasureResult> measure(const std::vector<Candidate>& batch) override {
    ++calls;
    std::vector<measure::MeasureResult> out;
    for (const Candidate& c : batch) {
      keys.push_back(candidate_key(c.steps));
      if (!lowers(dag_, c.steps)) ++invalid;
      measure::MeasureResult r;
      double penalty = 0;
      bool fails = false;
      for (const Step& s : c.steps) {
        if (auto* sp = std::get_if<schedule::SplitStep>(&s)) {
          if (sp->lengths.size() == 3) {
            penalty += std::fabs(std::log2(double(sp->lengths[2])) - 2) +
                       std::fabs(std::log2(double(sp->lengths[1])) - 1);
          }
        } else if (auto* pr = std::get_if<schedule::PragmaStep>(&s)) {
          if (pr->pragma_type == "auto_unroll_max_step$512") fails = true;
          if (pr->pragma_type != "auto_unroll_max_step$64") penalty += 1;
        }
      }
      if (fails) {
        r.error_no = measure::MeasureErrorNo::CompileHost;
        r.error_msg = "fake compile error";
      } else {
        r.costs = {1e-4 * (1 + penalty), 1e-4 * (1 + penalty)};
      }
      out.push_back(r);
      report_result(out.size() - 1, r);  // as the daemon's results arrive one by one
    }
    return out;
  }

  const dag::ComputeDAG& dag_;
  std::vector<std::string> keys;
  int calls = 0;
  int invalid = 0;
};

/// Every call of the tuner's observer, in order.
class ProgressLog : public TuneObserver {
 public:
  enum Kind { Phase, Result, BatchDone };
  struct Event {
    Kind kind;
    TuneProgress p;
  };
  std::vector<Event> events;
  std::vector<TuneProgress> batches;

  void on_phase(const TuneProgress& p) override { events.push_back({Phase, p}); }
  void on_result(const TuneProgress& p) override { events.push_back({Result, p}); }
  void on_batch_done(const TuneProgress& p) override {
    events.push_back({BatchDone, p});
    batches.push_back(p);
  }
  std::vector<int> batch_trials() const {
    std::vector<int> out;
    for (const auto& b : batches) out.push_back(b.trials_done);
    return out;
  }
};

dag::ComputeDAG matmul_dag() {
  return workload("matmul", {int64_t(32), int64_t(16), int64_t(32), std::string("float32")});
}

/// A short search: `trials` measurements in batches of `batch_size`, sketched for `num_cores`
/// cores so that the search does not depend on the machine, with the default seed.
TuneOptions short_search(int trials, int batch_size, int num_cores = 2) {
  TuneOptions opt;
  opt.trials = trials;
  opt.batch_size = batch_size;
  opt.num_cores = num_cores;
  return opt;
}

double best_cost(const std::vector<TuneRecord>& rs, size_t first, size_t last) {
  double best = INFINITY;
  for (size_t i = first; i < last && i < rs.size(); ++i)
    best = std::min(best, mean_cost(rs[i].result));
  return best;
}

TEST_CASE(
    "the tuner improves over rounds, never measures a state twice and sends only valid states") {
  dag::ComputeDAG dag = matmul_dag();
  ProgressLog observer;
  Tuner tuner(dag, short_search(80, 16), &observer);
  FakeMeasurer m(dag);
  std::vector<TuneRecord> records = tuner.run(m);
  const std::vector<TuneProgress>& progress = observer.batches;

  REQUIRE(records.size() == 80);
  CHECK(m.calls == 5);
  CHECK(m.invalid == 0);
  CHECK(std::set<std::string>(m.keys.begin(), m.keys.end()).size() == m.keys.size());
  REQUIRE(progress.size() == 5);
  for (size_t i = 0; i < progress.size(); ++i) {
    CHECK(progress[i].trials_done == static_cast<int>(16 * (i + 1)));
    if (i > 0) CHECK(progress[i].best_gflops >= progress[i - 1].best_gflops);
  }
  // The search finds better states than the random first batch.
  CHECK(best_cost(records, 16, 80) < best_cost(records, 0, 16));

  const TuneRecord* best = tuner.best();
  REQUIRE(best != nullptr);
  CHECK(best->result.error_no == measure::MeasureErrorNo::NoError);
  CHECK(mean_cost(best->result) == best_cost(records, 0, 80));
  CHECK(progress.back().best_gflops == Approx(2.0 * 32 * 16 * 32 / mean_cost(best->result) / 1e9));
}

TEST_CASE("the observer sees each phase, each result as it arrives and each batch's end") {
  dag::ComputeDAG dag = matmul_dag();
  ProgressLog log;
  Tuner tuner(dag, short_search(20, 8), &log);
  REQUIRE(log.events.size() == 1);  // the sketches come first, in the constructor
  CHECK(log.events[0].kind == ProgressLog::Phase);
  CHECK(log.events[0].p.phase == TunePhase::SketchGeneration);
  CHECK(log.events[0].p.trials_total == 20);
  FakeMeasurer m(dag);
  std::vector<TuneRecord> records = tuner.run(m);
  REQUIRE(records.size() == 20);

  int results = 0, errors = 0, batch = 0;
  double best = 0;
  for (size_t i = 1; i < log.events.size(); ++i) {
    const auto& e = log.events[i];
    CHECK(e.p.trials_total == 20);
    if (e.kind == ProgressLog::Phase && e.p.phase == TunePhase::Evolution) {
      CHECK(e.p.batch == ++batch);
      CHECK(e.p.batch_size == 0);
      // Measuring follows with the proposed batch.
      REQUIRE(i + 1 < log.events.size());
      CHECK(log.events[i + 1].p.phase == TunePhase::Measuring);
      CHECK(log.events[i + 1].p.batch_size == std::min(8, 20 - results));
    } else if (e.kind == ProgressLog::Result) {
      errors += records[results].result.error_no != measure::MeasureErrorNo::NoError;
      CHECK(e.p.trials_done == ++results);
      CHECK(e.p.errors == errors);
      CHECK(e.p.phase == TunePhase::Measuring);
      CHECK(e.p.best_gflops >= best);
      best = e.p.best_gflops;
    } else if (e.kind == ProgressLog::BatchDone) {
      CHECK(e.p.trials_done == results);
      CHECK(e.p.best_gflops == Approx(best));
    }
  }
  CHECK(results == 20);
  CHECK(batch == 3);
  CHECK(log.batch_trials() == std::vector<int>{8, 16, 20});
  CHECK(best > 0);
}

TEST_CASE("the same seed gives the same search") {
  dag::ComputeDAG dag = matmul_dag();
  TuneOptions opt = short_search(30, 10);
  opt.seed = 7;
  FakeMeasurer a(dag), b(dag);
  Tuner(dag, opt).run(a);
  Tuner(dag, opt).run(b);
  CHECK(a.keys == b.keys);
  opt.seed = 8;
  FakeMeasurer c(dag);
  Tuner(dag, opt).run(c);
  CHECK(a.keys != c.keys);
}

TEST_CASE("trials are respected when they are not a multiple of the batch size") {
  dag::ComputeDAG dag = matmul_dag();
  ProgressLog observer;
  Tuner tuner(dag, short_search(10, 4), &observer);
  FakeMeasurer m(dag);
  CHECK(tuner.run(m).size() == 10);
  CHECK(observer.batch_trials() == std::vector<int>{4, 8, 10});
  CHECK(m.keys.size() == 10);
}

TEST_CASE("history from a log seeds the search and is never measured again") {
  dag::ComputeDAG dag = matmul_dag();
  TuneOptions opt = short_search(32, 16);
  FakeMeasurer first(dag);
  Tuner t1(dag, opt);
  std::vector<TuneRecord> log = t1.run(first);
  double best_before = mean_cost(t1.best()->result);

  Tuner t2(dag, opt);  // same seed: without the history it would propose the same states
  t2.add_history(log);
  REQUIRE(t2.best() != nullptr);
  CHECK(mean_cost(t2.best()->result) == best_before);
  FakeMeasurer second(dag);
  std::vector<TuneRecord> more = t2.run(second);
  CHECK(more.size() == 32);
  std::set<std::string> old(first.keys.begin(), first.keys.end());
  for (const std::string& k : second.keys) CHECK(old.count(k) == 0);
  CHECK(mean_cost(t2.best()->result) <= best_before);
}

/// Every measurement fails, as when the compiler is missing.
class FailingMeasurer : public Measurer {
 public:
  std::vector<measure::MeasureResult> measure(const std::vector<Candidate>& batch) override {
    std::vector<measure::MeasureResult> out(batch.size());
    for (auto& r : out) r.error_no = measure::MeasureErrorNo::CompileHost;
    return out;
  }
};

TEST_CASE("failed measurements and unusable history do not stop the search") {
  dag::ComputeDAG dag = matmul_dag();
  TuneOptions opt = short_search(20, 8);
  Tuner tuner(dag, opt);
  TuneRecord bogus;
  bogus.candidate.steps = {schedule::SplitStep{99, 0, 4, {2}, true}};
  bogus.result.costs = {1e-9};
  tuner.add_history({bogus});
  FailingMeasurer m;
  std::vector<TuneRecord> records = tuner.run(m);
  CHECK(records.size() == 20);
  for (const TuneRecord& r : records)
    CHECK(candidate_key(r.candidate.steps) != candidate_key(bogus.candidate.steps));
  // The bogus record is the only success known.
  REQUIRE(tuner.best() != nullptr);
  CHECK(candidate_key(tuner.best()->candidate.steps) == candidate_key(bogus.candidate.steps));

  Tuner fresh(dag, opt);
  fresh.run(m);
  CHECK(fresh.best() == nullptr);
}

/// Measures `budget` candidates, then returns short batches, as the daemon measurer does once
/// its daemon has gone away.
class DyingMeasurer : public Measurer {
 public:
  explicit DyingMeasurer(size_t budget) : budget_(budget) {}
  std::vector<measure::MeasureResult> measure(const std::vector<Candidate>& batch) override {
    ++calls;
    size_t n = std::min(budget_, batch.size());
    budget_ -= n;
    std::vector<measure::MeasureResult> out(n);
    for (auto& r : out) r.costs = {1e-3};
    return out;
  }
  int calls = 0;

 private:
  size_t budget_;
};

TEST_CASE("a short batch from the measurer stops the run and keeps what was measured") {
  dag::ComputeDAG dag = matmul_dag();
  ProgressLog observer;
  Tuner tuner(dag, short_search(40, 8), &observer);
  DyingMeasurer m(11);  // the first batch, then 3 of the second
  std::vector<TuneRecord> records = tuner.run(m);
  std::vector<int> done = observer.batch_trials();
  CHECK(records.size() == 11);
  CHECK(m.calls == 2);  // no batch after the short one
  CHECK(tuner.stopped_by_measurer());
  CHECK(done == std::vector<int>{8, 11});
  REQUIRE(tuner.best() != nullptr);

  Tuner whole(dag, short_search(16, 8));
  DyingMeasurer plenty(100);
  CHECK(whole.run(plenty).size() == 16);
  CHECK(!whole.stopped_by_measurer());
}

TEST_CASE("the tuner stops when the search space is exhausted") {
  dag::ComputeDAG dag =
      workload("matmul", {int64_t(1), int64_t(1), int64_t(1), std::string("float32")});
  Tuner tuner(dag, short_search(500, 64, 1));
  FakeMeasurer m(dag);
  std::vector<TuneRecord> records = tuner.run(m);
  CHECK(records.size() < 500);
  CHECK(!records.empty());
  CHECK(std::set<std::string>(m.keys.begin(), m.keys.end()).size() == m.keys.size());
}

}  // namespace

TEST_CASE("results a measurer does not report one by one are reported when its batch returns") {
  dag::ComputeDAG dag = matmul_dag();
  ProgressLog log;
  Tuner tuner(dag, short_search(6, 4), &log);
  DyingMeasurer m(100);  // returns its results at once
  tuner.run(m);
  std::vector<int> done;
  for (const auto& e : log.events)
    if (e.kind == ProgressLog::Result) done.push_back(e.p.trials_done);
  CHECK(done == std::vector<int>{1, 2, 3, 4, 5, 6});
  CHECK(log.batch_trials() == std::vector<int>{4, 6});
}

}  // namespace mrd::tune
