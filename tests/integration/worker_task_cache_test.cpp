// A task crosses each worker's pipe once: real measurerd-worker processes, through the real
// pool, take every later job of a task by digest alone; a worker started again (killed between
// jobs) gets the task's bytes again; and a worker that has dropped a task answers TaskMissing,
// after which the job goes again with the bytes and succeeds.
#include <signal.h>

#include <boost/asio.hpp>
#include <boost/process.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>

#include "common/measure/task.h"
#include "common/proto/codec.h"
#include "daemon/server/process_worker_pool.h"
#include "daemon/server/worker_link.h"
#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;
using namespace mrd::daemon;
using measure::MeasureErrorNo;

namespace {

Job job_of(const std::shared_ptr<const TaskBytes>& task, Phase phase, std::string artifact = "") {
  Job j;
  j.phase = phase;
  j.task = task;
  j.steps = "[]";
  j.artifact = std::move(artifact);
  j.options = quick_options();
  return j;
}

/// Runs the event loop until `done()`; the deadline only guards against a hung test.
template <class Pred>
void run_until(boost::asio::io_context& io, Pred done) {
  auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!done()) {
    REQUIRE(std::chrono::steady_clock::now() < guard);
    io.run_one_for(std::chrono::seconds(1));
  }
}

struct PoolFixture {
  TempDir dir;
  boost::asio::io_context io;
  std::optional<ProcessWorkerPool> pool;
  bool ready = false;

  PoolFixture() {
    ProcessPoolConfig c;
    c.size = 1;
    c.worker_path = build_path("daemon/measurerd-worker");
    c.cache_dir = (dir.path / "cache").string();
    pool.emplace(io, c);
    pool->start([this] { ready = true; });
    run_until(io, [&] { return ready && pool->idle() == 1; });
  }
  ~PoolFixture() { pool->stop(); }

  JobOutcome run(Job job) {
    std::optional<JobOutcome> out;
    pool->submit(std::move(job), [&](JobOutcome o) { out = std::move(o); });
    run_until(io, [&] { return out.has_value() && pool->idle() == 1; });
    return *out;
  }
  /// A build and a run of the task's empty schedule; both must succeed.
  void build_and_run(const std::shared_ptr<const TaskBytes>& task) {
    auto built = run(job_of(task, Phase::Build));
    REQUIRE(built.result.error_no == MeasureErrorNo::NoError);
    auto ran = run(job_of(task, Phase::Run, built.artifact));
    REQUIRE(ran.result.error_no == MeasureErrorNo::NoError);
    CHECK(ran.result.costs.size() == 1);
  }
};

}  // namespace

TEST_CASE("worker task cache: the jobs of one task carry its bytes to a worker once") {
  PoolFixture f;
  auto task = make_task_bytes(measure::task_to_binary(matmul_task(16)));
  for (int i = 0; i < 3; ++i) f.build_and_run(task);
  CHECK(f.pool->task_traffic().bytes == task->bytes.size());  // 6 jobs, the bytes once
  CHECK(f.pool->task_traffic().resends == 0);

  auto other = make_task_bytes(measure::task_to_binary(matmul_task(8)));
  f.build_and_run(other);
  f.build_and_run(task);  // both kept
  CHECK(f.pool->task_traffic().bytes == task->bytes.size() + other->bytes.size());
}

TEST_CASE("worker task cache: a worker started again gets the task again") {
  PoolFixture f;
  auto task = make_task_bytes(measure::task_to_binary(matmul_task(16)));
  f.build_and_run(task);
  int old_pid = f.pool->status().at(0).pid;
  REQUIRE(::kill(old_pid, SIGKILL) == 0);
  run_until(f.io, [&] {
    auto s = f.pool->status();
    return s.size() == 1 && s[0].pid != old_pid && f.pool->idle() == 1;
  });
  f.build_and_run(task);
  CHECK(f.pool->task_traffic().bytes == 2 * task->bytes.size());
  CHECK(f.pool->task_traffic().resends == 0);
}

TEST_CASE("worker task cache: a worker that dropped the task says so and gets it again") {
  // The worker keeps one task's bytes (--task-cache-mb 0); this daemon side believes it keeps
  // a gigabyte's worth, so it names a dropped task by digest.
  TempDir dir;
  namespace bp = boost::process;
  bp::opstream to;
  bp::ipstream from;
  bp::child worker(build_path("daemon/measurerd-worker"),
                   bp::args({"--serve", "--cache-dir", (dir.path / "cache").string(),
                             "--temp-dir", (dir.path / "tmp").string(), "--task-cache-mb", "0"}),
                   bp::std_in < to, bp::std_out > from);
  WorkerLink link(proto::kDefaultMaxBody, uint64_t(1) << 30);
  auto next_events = [&] {
    std::string header(proto::kHeaderSize, '\0');
    REQUIRE(from.read(header.data(), header.size()));
    std::string body(proto::decode_header(header.data()).body_length, '\0');
    REQUIRE(from.read(body.data(), body.size()));
    auto events = link.feed(header + body);
    REQUIRE(events.size() == 1);
    return events[0];
  };
  auto send = [&](const std::string& frame) { REQUIRE(to.write(frame.data(), frame.size()).flush()); };
  auto build = [&](uint64_t id, const std::shared_ptr<const TaskBytes>& task) {
    send(link.start_job(id, job_of(task, Phase::Build)));
    auto e = next_events();
    if (e.kind == WorkerEvent::Kind::Resend) {
      send(e.frame);
      e = next_events();
    }
    REQUIRE(e.kind == WorkerEvent::Kind::Result);
    CHECK(e.outcome.result.error_no == MeasureErrorNo::NoError);
  };
  REQUIRE(next_events().kind == WorkerEvent::Kind::Ready);

  auto a = make_task_bytes(measure::task_to_binary(matmul_task(16)));
  auto b = make_task_bytes(measure::task_to_binary(matmul_task(8)));
  build(1, a);
  build(2, a);
  CHECK(link.task_resends() == 0);
  build(3, b);  // the worker drops a
  build(4, a);  // named by digest, missing, sent again
  CHECK(link.task_resends() == 1);
  CHECK(link.task_bytes_sent() == 2 * a->bytes.size() + b->bytes.size());

  to.pipe().close();
  worker.wait();
  CHECK(worker.exit_code() == 0);
}
