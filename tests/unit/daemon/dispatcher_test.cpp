#include "daemon/server/dispatcher.h"

#include <catch2/catch.hpp>

#include "fake_worker_pool.h"

using namespace mrd::daemon;
using mrd::daemon::testing::FakeWorkerPool;
using mrd::measure::MeasureErrorNo;
using mrd::measure::MeasureResult;
using mrd::measure::TimingPolicy;

namespace {

struct Collected {
  std::vector<uint32_t> indices;
  std::vector<MeasureResult> results;
  int done = 0;
  mrd::proto::RequestDone last_done;
};

RequestSink sink_for(Collected& c) {
  RequestSink s;
  s.on_result = [&c](uint32_t i, const MeasureResult& r) {
    c.indices.push_back(i);
    c.results.push_back(r);
  };
  s.on_done = [&c](const mrd::proto::RequestDone& d) {
    ++c.done;
    c.last_done = d;
  };
  return s;
}

mrd::proto::MeasureRequest request(uint64_t id, const std::string& prefix, int n) {
  mrd::proto::MeasureRequest r;
  r.request_id = id;
  r.task = "task-" + prefix;
  for (int i = 0; i < n; ++i) r.states.push_back(prefix + std::to_string(i));
  return r;
}

JobOutcome ok(double build_s = 0, double cost = 0) {
  JobOutcome o;
  o.result.build_seconds = build_s;
  o.result.all_cost = build_s;
  if (cost > 0) o.result.costs = {cost};
  return o;
}

size_t find_job(FakeWorkerPool& pool, const std::string& steps, Phase phase) {
  for (size_t i = 0; i < pool.jobs.size(); ++i)
    if (pool.jobs[i].job.steps == steps && pool.jobs[i].job.phase == phase) return i;
  FAIL("no pending job " << steps);
  return 0;
}

}  // namespace

TEST_CASE("results stream in submission order whatever order jobs finish in") {
  FakeWorkerPool pool(3);
  Dispatcher d(pool, TimingPolicy::Shared);
  Collected c;
  REQUIRE(d.submit(1, request(7, "a", 3), sink_for(c)));
  REQUIRE(pool.count(Phase::Build) == 3);
  pool.complete(find_job(pool, "a2", Phase::Build), ok());
  pool.complete(find_job(pool, "a1", Phase::Build), ok());
  pool.complete(find_job(pool, "a0", Phase::Build), ok());
  REQUIRE(pool.count(Phase::Run) == 3);
  CHECK(pool.jobs[find_job(pool, "a2", Phase::Run)].job.artifact == "artifact:a2");
  pool.complete(find_job(pool, "a2", Phase::Run), ok(0, 2.0));
  pool.complete(find_job(pool, "a1", Phase::Run), ok(0, 1.0));
  CHECK(c.indices.empty());  // input 0 not done yet
  pool.complete(find_job(pool, "a0", Phase::Run), ok(0, 0.5));
  CHECK(c.indices == std::vector<uint32_t>{0, 1, 2});
  CHECK(c.results[1].costs == std::vector<double>{1.0});
  CHECK(c.done == 1);
  CHECK(c.last_done.request_id == 7);
  CHECK(c.last_done.count == 3);
  CHECK(d.stats().completed == 3);
  CHECK(d.stats().requests == 0);
}

TEST_CASE("requests share the workers round robin") {
  FakeWorkerPool pool(1);
  Dispatcher d(pool, TimingPolicy::Shared);
  Collected a, b;
  d.submit(1, request(1, "a", 3), sink_for(a));
  d.submit(2, request(1, "b", 3), sink_for(b));
  std::vector<std::string> builds;
  while (!pool.jobs.empty()) {
    if (pool.jobs[0].job.phase == Phase::Build) builds.push_back(pool.jobs[0].job.steps);
    pool.complete(0, ok());
  }
  CHECK(builds == std::vector<std::string>{"a0", "b0", "a1", "b1", "a2", "b2"});
  CHECK(a.indices == std::vector<uint32_t>{0, 1, 2});
  CHECK(b.indices == std::vector<uint32_t>{0, 1, 2});
}

TEST_CASE("exclusive policy: a run overlaps no build and no other run") {
  FakeWorkerPool pool(4);
  Dispatcher d(pool, TimingPolicy::Exclusive);
  Collected c;
  d.submit(1, request(1, "x", 6), sink_for(c));
  CHECK(pool.count(Phase::Build) == 4);
  pool.complete(find_job(pool, "x0", Phase::Build), ok());
  // The backlog is far from full: the idle worker builds the next input.
  CHECK(pool.count(Phase::Build) == 4);
  CHECK(pool.count(Phase::Run) == 0);
  for (const char* x : {"x1", "x2", "x3", "x4"}) pool.complete(find_job(pool, x, Phase::Build), ok());
  CHECK(pool.count(Phase::Run) == 0);  // x5 still builds
  pool.complete(find_job(pool, "x5", Phase::Build), ok());
  // Builds drained: the backlog is timed one candidate at a time, nothing else.
  for (int i = 0; i < 6; ++i) {
    REQUIRE(pool.jobs.size() == 1);
    REQUIRE(pool.jobs[0].job.phase == Phase::Run);
    pool.complete(0, ok());
  }
  CHECK(pool.jobs.empty());
  CHECK(c.indices == std::vector<uint32_t>{0, 1, 2, 3, 4, 5});
  CHECK(c.done == 1);
  for (const auto& r : c.results) CHECK(r.policy == TimingPolicy::Exclusive);
}

TEST_CASE("exclusive policy: a full backlog ends the build phase until it is timed") {
  FakeWorkerPool pool(1);
  Dispatcher d(pool, TimingPolicy::Exclusive);
  Collected c;
  const size_t batch = Dispatcher::kRunBatchPerWorker;
  d.submit(1, request(1, "y", static_cast<int>(batch + 3)), sink_for(c));
  for (size_t i = 0; i < batch; ++i) {
    REQUIRE(pool.jobs.size() == 1);
    REQUIRE(pool.jobs[0].job.phase == Phase::Build);
    pool.complete(0, ok());
  }
  // `batch` candidates built: they are all timed before the next build starts.
  for (size_t i = 0; i < batch; ++i) {
    REQUIRE(pool.jobs.size() == 1);
    REQUIRE(pool.jobs[0].job.phase == Phase::Run);
    pool.complete(0, ok());
  }
  CHECK(c.indices.size() == batch);
  REQUIRE(pool.jobs.size() == 1);
  CHECK(pool.jobs[0].job.phase == Phase::Build);
  // A request arriving during a timing phase waits for the backlog, then builds.
  Collected late;
  while (pool.jobs[0].job.phase == Phase::Build) pool.complete(0, ok());
  d.submit(2, request(1, "z", 1), sink_for(late));
  CHECK(pool.jobs.size() == 1);
  CHECK(pool.count(Phase::Run) == 1);
  while (!pool.jobs.empty()) {
    CHECK(pool.jobs.size() == 1);
    pool.complete(0, ok());
  }
  CHECK(c.done == 1);
  CHECK(late.done == 1);
}

TEST_CASE("shared policy runs while building") {
  FakeWorkerPool pool(2);
  Dispatcher d(pool, TimingPolicy::Shared);
  Collected c;
  d.submit(1, request(1, "s", 4), sink_for(c));
  pool.complete(find_job(pool, "s0", Phase::Build), ok());
  CHECK(pool.count(Phase::Run) == 1);
  CHECK(pool.count(Phase::Build) == 1);
  while (!pool.jobs.empty()) pool.complete(0, ok());
  REQUIRE(c.results.size() == 4);
  CHECK(c.results[0].policy == TimingPolicy::Shared);
}

TEST_CASE("a failed build is the input's result, a run merges the build's figures") {
  FakeWorkerPool pool(2);
  Dispatcher d(pool, TimingPolicy::Shared);
  Collected c;
  d.submit(1, request(1, "f", 2), sink_for(c));
  JobOutcome bad;
  bad.result.error_no = MeasureErrorNo::CompileHost;
  bad.result.error_msg = "no compiler";
  pool.complete(find_job(pool, "f0", Phase::Build), bad);
  JobOutcome built = ok(0.25);
  built.result.cache_hit = true;
  pool.complete(find_job(pool, "f1", Phase::Build), built);
  JobOutcome ran = ok(0, 1e-3);
  ran.result.run_seconds = 0.5;
  ran.result.all_cost = 0.5;
  pool.complete(find_job(pool, "f1", Phase::Run), ran);
  REQUIRE(c.results.size() == 2);
  CHECK(c.results[0].error_no == MeasureErrorNo::CompileHost);
  CHECK(c.results[1].error_no == MeasureErrorNo::NoError);
  CHECK(c.results[1].build_seconds == 0.25);
  CHECK(c.results[1].cache_hit);
  CHECK(c.results[1].all_cost == Approx(0.75));
  CHECK(c.last_done.errors == 1);
  CHECK(d.stats().cache_hits == 1);
}

TEST_CASE("cancel gives the waiting inputs a cancelled result, jobs on workers finish") {
  FakeWorkerPool pool(1);
  Dispatcher d(pool, TimingPolicy::Shared);
  Collected c;
  d.submit(1, request(5, "c", 3), sink_for(c));
  REQUIRE(pool.jobs.size() == 1);  // c0 building
  CHECK(d.cancel(1, 5));
  CHECK_FALSE(d.cancel(1, 6));
  CHECK(c.indices.empty());  // c0 not done: order holds
  pool.complete(0, ok());    // its build: no run after a cancel
  REQUIRE(c.results.size() == 3);
  for (const auto& r : c.results) CHECK(r.error_no == MeasureErrorNo::UnknownError);
  CHECK(c.results[2].error_msg == "cancelled");
  CHECK(c.done == 1);
  CHECK(pool.jobs.empty());
}

TEST_CASE("a client that goes away has its queued work dropped") {
  FakeWorkerPool pool(1);
  Dispatcher d(pool, TimingPolicy::Shared);
  Collected gone, stays;
  d.submit(1, request(1, "g", 5), sink_for(gone));
  d.submit(2, request(1, "k", 1), sink_for(stays));
  d.drop_client(1);
  CHECK(d.stats().queued == 1);  // k0 only
  pool.complete(0, ok());        // g0's build: result discarded
  while (!pool.jobs.empty()) {
    CHECK(pool.jobs[0].job.steps == "k0");
    pool.complete(0, ok());
  }
  CHECK(gone.indices.empty());
  CHECK(gone.done == 0);
  CHECK(stays.done == 1);
}

TEST_CASE("a request id in flight cannot be reused, an empty request is done at once") {
  FakeWorkerPool pool(1);
  Dispatcher d(pool, TimingPolicy::Shared);
  Collected c, c2, e;
  CHECK(d.submit(1, request(3, "d", 1), sink_for(c)));
  CHECK_FALSE(d.submit(1, request(3, "d", 1), sink_for(c2)));
  CHECK(d.submit(2, request(3, "d", 1), sink_for(c2)));  // another client may
  CHECK(d.submit(1, request(4, "e", 0), sink_for(e)));
  CHECK(e.done == 1);
  CHECK(e.last_done.count == 0);
}

TEST_CASE("a repeated state waits for the identical build in flight instead of compiling twice") {
  FakeWorkerPool pool(2);
  Dispatcher d(pool, TimingPolicy::Exclusive);
  Collected c;
  mrd::proto::MeasureRequest r = request(1, "unused", 0);
  r.states = {"p", "p", "q"};
  d.submit(1, r, sink_for(c));
  // Input 1 repeats input 0, which is building: the second worker stays idle.
  REQUIRE(pool.jobs.size() == 1);
  CHECK(pool.jobs[0].job.steps == "p");
  pool.complete(0, ok());
  // Input 0's build is done (its shared object is in the cache): input 1 and 2 build now.
  CHECK(pool.count(Phase::Build) == 2);
  while (!pool.jobs.empty()) pool.complete(0, ok());
  CHECK(c.indices == std::vector<uint32_t>{0, 1, 2});
  CHECK(c.done == 1);
}

TEST_CASE("a paused client starts no job, its backlog holds up nobody else") {
  FakeWorkerPool pool(1);
  Dispatcher d(pool, TimingPolicy::Exclusive);
  Collected a, b;
  d.submit(1, request(1, "a", 2), sink_for(a));
  REQUIRE(pool.jobs.size() == 1);
  pool.complete(0, ok());  // a0 built; a1 building
  d.pause_client(1);
  pool.complete(0, ok());  // a1 built: the job on the worker finishes, nothing of a starts
  CHECK(pool.jobs.empty());
  d.submit(2, request(1, "b", 1), sink_for(b));
  // a's built candidates wait for a run, but b is built and timed meanwhile.
  REQUIRE(pool.jobs.size() == 1);
  CHECK(pool.jobs[0].job.steps == "b0");
  pool.complete(0, ok());
  REQUIRE(pool.jobs.size() == 1);
  CHECK(pool.jobs[0].job.phase == Phase::Run);
  CHECK(pool.jobs[0].job.steps == "b0");
  pool.complete(0, ok());
  CHECK(b.done == 1);
  CHECK(pool.jobs.empty());
  d.resume_client(1);
  while (!pool.jobs.empty()) pool.complete(0, ok());
  CHECK(a.indices == std::vector<uint32_t>{0, 1});
  CHECK(a.done == 1);
}

TEST_CASE("fail_waiting fails every input not on a worker, jobs on workers finish") {
  FakeWorkerPool pool(1);
  Dispatcher d(pool, TimingPolicy::Shared);
  Collected a;
  d.submit(1, request(1, "a", 3), sink_for(a));
  REQUIRE(pool.jobs.size() == 1);  // a0 building
  CHECK(d.fail_waiting("no worker") == 2);
  CHECK(a.indices.empty());  // a0 comes first, still building
  pool.complete(0, ok());    // a0 built; its run would need a worker too
  REQUIRE(pool.jobs.size() == 1);
  pool.complete(0, ok(0, 1.0));
  CHECK(a.indices == std::vector<uint32_t>{0, 1, 2});
  CHECK(a.results[0].error_no == MeasureErrorNo::NoError);
  CHECK(a.results[1].error_no == MeasureErrorNo::UnknownError);
  CHECK(a.results[2].error_msg == "no worker");
  CHECK(a.done == 1);
  CHECK(a.last_done.errors == 2);
}

TEST_CASE("clients take turns, not requests: many requests from one client get one turn") {
  FakeWorkerPool pool(1);
  Dispatcher d(pool, TimingPolicy::Shared);
  Collected a, b, dd, c;
  d.submit(1, request(1, "a", 2), sink_for(a));
  d.submit(1, request(2, "b", 2), sink_for(b));
  d.submit(1, request(3, "d", 2), sink_for(dd));
  d.submit(2, request(1, "c", 2), sink_for(c));
  std::vector<std::string> builds;
  while (!pool.jobs.empty()) {
    if (pool.jobs[0].job.phase == Phase::Build) builds.push_back(pool.jobs[0].job.steps);
    pool.complete(0, ok());
  }
  // Client 2 gets every other build while it has inputs; client 1's requests share the rest.
  CHECK(builds ==
        std::vector<std::string>{"a0", "c0", "b0", "c1", "d0", "a1", "b1", "d1"});
  CHECK(c.done == 1);
  CHECK(a.done + b.done + dd.done == 3);
}

TEST_CASE("a client waiting for a turn is not overtaken by clients that come after it") {
  FakeWorkerPool pool(1);
  Dispatcher d(pool, TimingPolicy::Exclusive);
  Collected first, holder, waiter, late;
  d.submit(1, request(1, "w", 1), sink_for(first));  // client 1 has had its turns
  while (!pool.jobs.empty()) pool.complete(0, ok());
  REQUIRE(first.done == 1);
  d.submit(5, request(1, "h", 1), sink_for(holder));  // holds the worker
  d.submit(1, request(2, "v", 1), sink_for(waiter));
  d.submit(9, request(1, "n", 1), sink_for(late));    // a connection that came later
  REQUIRE(pool.jobs.size() == 1);
  pool.complete(0, ok());  // h0 built, then timed
  REQUIRE(pool.jobs.size() == 1);
  REQUIRE(pool.jobs[0].job.phase == Phase::Run);
  pool.complete(0, ok());
  CHECK(holder.done == 1);
  // Client 1 waited since before client 9 came: its build is next, then its run.
  REQUIRE(pool.jobs.size() == 1);
  CHECK(pool.jobs[0].job.steps == "v0");
  while (waiter.done == 0) {
    REQUIRE(pool.jobs.size() == 1);
    CHECK(pool.jobs[0].job.steps == "v0");
    pool.complete(0, ok());
  }
  while (!pool.jobs.empty()) pool.complete(0, ok());
  CHECK(late.done == 1);
}

TEST_CASE("exclusive policy: a request with only timing left ends the build phase") {
  FakeWorkerPool pool(2);
  Dispatcher d(pool, TimingPolicy::Exclusive);
  Collected hog, small;
  d.submit(2, request(1, "h", 10), sink_for(hog));
  d.submit(1, request(1, "v", 1), sink_for(small));
  pool.complete(find_job(pool, "h0", Phase::Build), ok());
  // Client 1's turn: its only input builds; once built, no further build starts (h2 would
  // otherwise follow, and others after it, until the backlog filled).
  pool.complete(find_job(pool, "v0", Phase::Build), ok());
  CHECK(pool.count(Phase::Build) == 1);  // h1, already running
  pool.complete(find_job(pool, "h1", Phase::Build), ok());
  int runs_before = 0;
  while (small.done == 0) {
    REQUIRE(pool.jobs.size() == 1);
    REQUIRE(pool.jobs[0].job.phase == Phase::Run);
    runs_before += pool.jobs[0].job.steps != "v0";
    pool.complete(0, ok());
  }
  CHECK(runs_before <= 1);
  while (!pool.jobs.empty()) pool.complete(0, ok());
  CHECK(hog.done == 1);
}
