#include "client/tune/tuner.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "client/tune/init_population.h"
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
/// cores so that the search does not depend on the machine, with the default seed and no
/// confirmation at the end (tested on its own below).
TuneOptions short_search(int trials, int batch_size, int num_cores = 2) {
  TuneOptions opt;
  opt.trials = trials;
  opt.batch_size = batch_size;
  opt.num_cores = num_cores;
  opt.confirm_top = 0;
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

/// The fake's costs, except that the state measured fastest in the trials was lucky: measured
/// again, it costs 10x more. Keeps what it is asked to measure again.
class LuckyMeasurer : public Measurer {
 public:
  explicit LuckyMeasurer(const dag::ComputeDAG& dag) : fake(dag) {}
  std::vector<measure::MeasureResult> measure(const std::vector<Candidate>& batch) override {
    std::vector<measure::MeasureResult> out = fake.measure(batch);
    for (size_t i = 0; i < out.size(); ++i) {
      if (mean_cost(out[i]) < lucky_cost) {
        lucky_cost = mean_cost(out[i]);
        lucky = candidate_key(batch[i].steps);
      }
      report_result(i, out[i]);
    }
    return out;
  }
  std::vector<measure::MeasureResult> measure_again(const std::vector<Candidate>& batch) override {
    std::vector<measure::MeasureResult> out = fake.measure(batch);
    again.emplace_back();
    for (size_t i = 0; i < out.size(); ++i) {
      again.back().push_back(candidate_key(batch[i].steps));
      if (again.back().back() == lucky)
        for (double& c : out[i].costs) c *= 10;
      report_result(i, out[i]);
    }
    return out;
  }
  FakeMeasurer fake;
  std::string lucky;
  double lucky_cost = INFINITY;
  std::vector<std::vector<std::string>> again;  // per call of measure_again
};

TEST_CASE("after the trials the best states are measured again and judged by that measurement") {
  dag::ComputeDAG dag = matmul_dag();
  TuneOptions opt = short_search(48, 16);
  opt.confirm_top = 4;
  ProgressLog log;
  Tuner tuner(dag, opt, &log);
  LuckyMeasurer m(dag);
  std::vector<TuneRecord> records = tuner.run(m);
  REQUIRE(records.size() == 48);  // the confirmations are no trials
  CHECK(log.batch_trials() == std::vector<int>{16, 32, 48, 48});

  // The 4 cheapest states of the trials, cheapest first, measured again in one call.
  std::vector<const TuneRecord*> by_cost;
  for (const TuneRecord& r : records) by_cost.push_back(&r);
  std::stable_sort(by_cost.begin(), by_cost.end(), [](const TuneRecord* a, const TuneRecord* b) {
    return mean_cost(a->result) < mean_cost(b->result);
  });
  std::vector<std::string> expected;
  for (size_t i = 0; i < 4; ++i) expected.push_back(candidate_key(by_cost[i]->candidate.steps));
  REQUIRE(m.again.size() == 1);
  CHECK(m.again[0] == expected);
  CHECK(expected[0] == m.lucky);
  REQUIRE(tuner.confirmations().size() == 4);
  for (size_t i = 0; i < 4; ++i)
    CHECK(candidate_key(tuner.confirmations()[i].candidate.steps) == expected[i]);
  bool confirming = false;
  for (const auto& e : log.events) {
    if (e.kind == ProgressLog::Phase && e.p.phase == TunePhase::Confirming) {
      confirming = true;
      CHECK(e.p.batch_size == 4);
      CHECK(e.p.trials_done == 48);
    }
  }
  CHECK(confirming);

  // The lucky state is judged by its second measurement: the best is no longer it, and it
  // costs what the second cheapest state of the trials cost.
  const TuneRecord* best = tuner.best();
  REQUIRE(best != nullptr);
  CHECK(candidate_key(best->candidate.steps) != m.lucky);
  CHECK(mean_cost(best->result) == mean_cost(by_cost[1]->result));
  CHECK(log.batches.back().best_gflops ==
        Approx(2.0 * 32 * 16 * 32 / mean_cost(best->result) / 1e9));

  // The same seed and results give the same confirmation.
  Tuner again(dag, opt);
  LuckyMeasurer m2(dag);
  again.run(m2);
  CHECK(m2.again == m.again);
}

/// The fake's costs, each made distinct (a state's cost grows by a millionth per state measured
/// before it), except that the `n_lucky` cheapest states of the trials were lucky: measured
/// again, they cost 10x more.
class ManyLuckyMeasurer : public Measurer {
 public:
  ManyLuckyMeasurer(const dag::ComputeDAG& dag, size_t n_lucky) : fake(dag), n_lucky_(n_lucky) {}
  std::vector<measure::MeasureResult> measure(const std::vector<Candidate>& batch) override {
    std::vector<measure::MeasureResult> out = fake.measure(batch);
    for (size_t i = 0; i < out.size(); ++i) {
      for (double& c : out[i].costs) c *= 1 + 1e-6 * static_cast<double>(cost_of.size());
      cost_of[candidate_key(batch[i].steps)] = out[i].costs;
      trials.emplace_back(mean_cost(out[i]), candidate_key(batch[i].steps));
    }
    std::stable_sort(trials.begin(), trials.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
  }
  std::vector<measure::MeasureResult> measure_again(const std::vector<Candidate>& batch) override {
    std::vector<measure::MeasureResult> out(batch.size());
    again.emplace_back();
    for (size_t i = 0; i < out.size(); ++i) {
      std::string key = candidate_key(batch[i].steps);
      again.back().push_back(key);
      out[i].costs = cost_of.at(key);
      for (size_t k = 0; k < n_lucky_ && k < trials.size(); ++k)
        if (trials[k].second == key)
          for (double& c : out[i].costs) c *= 10;
      report_result(i, out[i]);
    }
    return out;
  }
  FakeMeasurer fake;
  std::map<std::string, std::vector<double>> cost_of;  // of the trials
  std::vector<std::pair<double, std::string>> trials;  // cheapest first
  std::vector<std::vector<std::string>> again;         // per call of measure_again
 private:
  size_t n_lucky_;
};

TEST_CASE("when every confirmed state got slower, the states that now beat them are confirmed too") {
  dag::ComputeDAG dag = matmul_dag();
  TuneOptions opt = short_search(48, 16);
  opt.confirm_top = 4;
  Tuner tuner(dag, opt);
  ManyLuckyMeasurer m(dag, 4);
  tuner.run(m);
  REQUIRE(m.trials.size() == 48);

  // Round 1: the 4 cheapest (all lucky, 10x now); round 2: the next ones, cheaper than every
  // confirmed state now, up to 4; the best is then a state measured twice.
  REQUIRE(m.again.size() == 2);
  std::vector<std::string> first, second;
  for (size_t k = 0; k < 4; ++k) first.push_back(m.trials[k].second);
  CHECK(m.again[0] == first);
  for (size_t k = 4; k < m.trials.size() && second.size() < 4; ++k)
    if (m.trials[k].first < 10 * m.trials[0].first) second.push_back(m.trials[k].second);
  CHECK(m.again[1] == second);
  REQUIRE(tuner.best() != nullptr);
  std::string best = candidate_key(tuner.best()->candidate.steps);
  CHECK(best == m.trials[4].second);
  CHECK(mean_cost(tuner.best()->result) == m.trials[4].first);
  size_t confirmed_best = 0;
  for (const TuneRecord& r : tuner.confirmations()) confirmed_best += candidate_key(r.candidate.steps) == best;
  CHECK(confirmed_best == 1);
  CHECK(tuner.confirmations().size() == first.size() + second.size());
}

TEST_CASE("confirmation stops after its rounds even when each one makes the best slower") {
  dag::ComputeDAG dag = matmul_dag();
  TuneOptions opt = short_search(48, 16);
  opt.confirm_top = 2;
  Tuner tuner(dag, opt);
  ManyLuckyMeasurer m(dag, 48);  // every state is 10x slower measured again
  tuner.run(m);
  CHECK(m.again.size() == static_cast<size_t>(Tuner::kConfirmRounds));
  CHECK(tuner.confirmations().size() == 2 * Tuner::kConfirmRounds);
}

TEST_CASE("a state measured again is judged by its latest successful record, also from history") {
  dag::ComputeDAG dag = matmul_dag();
  std::vector<Candidate> states = sample_initial_population(dag, 2, 1, 2);
  REQUIRE(states.size() == 2);
  auto record = [](const Candidate& c, double cost) {
    TuneRecord r;
    r.candidate = c;
    r.result.costs = {cost};
    return r;
  };
  Tuner tuner(dag, short_search(0, 8));
  tuner.add_history({record(states[0], 1e-4), record(states[1], 2e-4)});
  CHECK(candidate_key(tuner.best()->candidate.steps) == candidate_key(states[0].steps));
  tuner.add_history({record(states[0], 3e-4)});  // measured again: slower
  REQUIRE(tuner.best() != nullptr);
  CHECK(candidate_key(tuner.best()->candidate.steps) == candidate_key(states[1].steps));
  TuneRecord failed = record(states[1], 1e-5);
  failed.result.error_no = measure::MeasureErrorNo::RuntimeDevice;  // measured again: it failed
  tuner.add_history({failed});
  // A failed re-measure says nothing of the cost: the state keeps its last result.
  REQUIRE(tuner.best() != nullptr);
  CHECK(candidate_key(tuner.best()->candidate.steps) == candidate_key(states[1].steps));
  CHECK(mean_cost(tuner.best()->result) == 2e-4);
}

TEST_CASE("no confirmation after a short batch from the measurer") {
  dag::ComputeDAG dag = matmul_dag();
  TuneOptions opt = short_search(40, 8);
  opt.confirm_top = 4;
  Tuner tuner(dag, opt);
  DyingMeasurer m(11);
  CHECK(tuner.run(m).size() == 11);
  CHECK(m.calls == 2);
  CHECK(tuner.confirmations().empty());
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
