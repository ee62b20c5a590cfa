// The dispatcher's pinned timing policy and its skip-hopeless bookkeeping (the best cost of
// each task sent with its runs), over a fake pool.
#include <catch2/catch.hpp>

#include "common/measure/task.h"
#include "daemon/server/dispatcher.h"
#include "fake_worker_pool.h"

using namespace mrd;
using namespace mrd::daemon;
using mrd::daemon::testing::FakeWorkerPool;
using mrd::measure::MeasureResult;
using mrd::measure::TimingPolicy;

namespace {

std::string task_bytes(int num_cores, int64_t n = 64) {
  measure::Task t;
  t.workload = registry::FunctionWorkload{"matmul", {n, n, n, std::string("float32")}};
  t.hardware.num_cores = num_cores;
  return measure::task_to_binary(t);
}

proto::MeasureRequest request(uint64_t id, const std::string& task, const std::string& prefix, int n,
                              bool skip_hopeless = false) {
  proto::MeasureRequest r;
  r.request_id = id;
  r.task = task;
  r.options.skip_hopeless = skip_hopeless;
  for (int i = 0; i < n; ++i) r.states.push_back(prefix + std::to_string(i));
  return r;
}

JobOutcome ok(double cost = 0) {
  JobOutcome o;
  if (cost > 0) o.result.costs = {cost};
  return o;
}

std::optional<size_t> find_job(FakeWorkerPool& pool, const std::string& steps, Phase phase) {
  for (size_t i = 0; i < pool.jobs.size(); ++i)
    if (pool.jobs[i].job.steps == steps && pool.jobs[i].job.phase == phase) return i;
  return std::nullopt;
}

RequestSink counting(std::vector<MeasureResult>& out) {
  RequestSink s;
  s.on_result = [&out](uint32_t, const MeasureResult& r) { out.push_back(r); };
  return s;
}

}  // namespace

TEST_CASE("pinned policy: a run times on the task's last num_cores cores, builds move to the others meanwhile") {
  FakeWorkerPool pool(2);
  Dispatcher d(pool, TimingPolicy::Pinned, {0, 1, 2, 3});
  std::vector<MeasureResult> results;
  d.submit(1, request(1, task_bytes(1), "p", 4), counting(results));
  const std::vector<int> all = {0, 1, 2, 3}, others = {0, 1, 2};
  REQUIRE(pool.count(Phase::Build) == 2);
  for (const auto& p : pool.jobs) CHECK(p.job.cores == all);  // no run: every core
  pool.complete(*find_job(pool, "p0", Phase::Build), ok());
  // p0 is timed at once, beside the build of p1 — unlike exclusive, nothing waits for a phase
  // — and that build moved off the run's core.
  auto run = find_job(pool, "p0", Phase::Run);
  REQUIRE(run);
  CHECK(pool.jobs[*run].job.cores == std::vector<int>{3});
  REQUIRE(find_job(pool, "p1", Phase::Build));
  CHECK(pool.jobs[*find_job(pool, "p1", Phase::Build)].job.cores == others);
  pool.complete(*find_job(pool, "p1", Phase::Build), ok());
  // One run at a time: p1 waits for p0's run, and the free worker builds p2 off the run's core.
  CHECK(pool.count(Phase::Run) == 1);
  REQUIRE(find_job(pool, "p2", Phase::Build));
  CHECK(pool.jobs[*find_job(pool, "p2", Phase::Build)].job.cores == others);
  pool.complete(*find_job(pool, "p0", Phase::Run), ok(0.01));
  // p1's run starts at once; had none been waiting, p2 would have had every core back.
  CHECK(find_job(pool, "p1", Phase::Run));
  pool.complete(*find_job(pool, "p1", Phase::Run), ok(0.01));
  CHECK(pool.count(Phase::Run) == 0);
  CHECK(pool.jobs[*find_job(pool, "p2", Phase::Build)].job.cores == all);
  while (!pool.jobs.empty()) {
    CHECK(pool.count(Phase::Run) <= 1);
    pool.complete(0, ok(0.01));
  }
  REQUIRE(results.size() == 4);
  for (const auto& r : results) CHECK(r.policy == TimingPolicy::Pinned);
}

TEST_CASE("pinned policy: a task that needs every core is timed with nothing else active") {
  FakeWorkerPool pool(2);
  Dispatcher d(pool, TimingPolicy::Pinned, {0, 1});
  std::vector<MeasureResult> results;
  d.submit(1, request(1, task_bytes(0), "q", 3), counting(results));  // num_cores 0: both cores
  REQUIRE(pool.count(Phase::Build) == 2);
  pool.complete(*find_job(pool, "q0", Phase::Build), ok());
  // q1 still builds on a core the run needs: q0 waits, and q2 is not started meanwhile.
  CHECK(pool.count(Phase::Run) == 0);
  CHECK_FALSE(find_job(pool, "q2", Phase::Build));
  pool.complete(*find_job(pool, "q1", Phase::Build), ok());
  REQUIRE(pool.jobs.size() == 1);
  CHECK(pool.jobs[0].job.phase == Phase::Run);
  CHECK(pool.jobs[0].job.cores == std::vector<int>{0, 1});
  pool.complete(0, ok(0.01));
  // Every run done (the built ones were timed first, one at a time), q2 builds.
  while (!pool.jobs.empty()) {
    size_t runs = pool.count(Phase::Run);
    CHECK(runs <= 1);
    if (runs == 1) CHECK(pool.jobs.size() == 1);
    pool.complete(0, ok(0.01));
  }
  CHECK(results.size() == 3);
}

TEST_CASE("skip-hopeless: runs carry the best mean cost timed for their task, not another's") {
  FakeWorkerPool pool(1);
  Dispatcher d(pool, TimingPolicy::Shared);
  std::vector<MeasureResult> a, b;
  std::string big = task_bytes(1, 128), small = task_bytes(1, 64);
  d.submit(1, request(1, big, "a", 3, true), counting(a));
  auto next = [&](Phase phase) {
    REQUIRE(pool.jobs.size() == 1);
    REQUIRE(pool.jobs[0].job.phase == phase);
    return pool.jobs[0].job;
  };
  next(Phase::Build), pool.complete(0, ok());
  CHECK(next(Phase::Run).best_cost == 0);  // nothing timed yet
  pool.complete(0, ok(0.004));
  next(Phase::Build), pool.complete(0, ok());
  CHECK(next(Phase::Run).best_cost == Approx(0.004));
  JobOutcome skipped = ok(0.5);
  skipped.result.timing_skipped = true;  // a skipped result's cost is no mean cost
  pool.complete(0, skipped);
  next(Phase::Build), pool.complete(0, ok());
  CHECK(next(Phase::Run).best_cost == Approx(0.004));
  pool.complete(0, ok(0.002));
  CHECK(d.best_cost(big) == Approx(0.002));
  // Another task starts from nothing; a request without the option gets no best.
  d.submit(1, request(2, small, "b", 1, true), counting(b));
  next(Phase::Build), pool.complete(0, ok());
  CHECK(next(Phase::Run).best_cost == 0);
  pool.complete(0, ok(0.001));
  d.submit(1, request(3, big, "c", 1, false), counting(b));
  next(Phase::Build), pool.complete(0, ok());
  CHECK(next(Phase::Run).best_cost == 0);
  pool.complete(0, ok(0.001));
  CHECK(a.size() == 3);
  CHECK(a[1].timing_skipped);
}
