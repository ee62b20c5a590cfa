// Faults with a real daemon: a worker killed mid-batch, run and build timeouts. Each gives the
// right error for its input only; the pool comes back to its size; the daemon keeps serving.
#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;
using measure::MeasureErrorNo;
using measure::MeasureResult;

namespace {

/// Polls the daemon's status until a worker is in `state`; returns its pid, or 0 when
/// `finished` became true first (the work ended without ever reaching that state).
int32_t wait_for_worker(client::Client& c, proto::WorkerState state,
                        const std::atomic<bool>& finished) {
  while (!finished) {
    for (const auto& w : c.status().worker_list)
      if (w.state == state) return w.pid;
  }
  return 0;
}

bool small_batch_works(const std::string& socket) {
  client::Client c(socket);
  bool ok = true;
  c.measure(matmul_task(16), {"[]"}, quick_options(), [&](uint32_t, const MeasureResult& r) {
    ok = ok && r.error_no == MeasureErrorNo::NoError;
  });
  return ok;
}

}  // namespace

TEST_CASE("a worker killed mid-batch fails its input only, the pool is back to N") {
  Daemon d(2);
  auto options = quick_options();
  options.min_repeat_ms = 1500;  // each timing lasts long enough to be caught running
  std::vector<MeasureResult> results;
  std::string error;
  std::atomic<bool> finished{false};
  std::thread submitter([&] {
    try {
      client::Client c(d.socket());
      c.measure(matmul_task(64), {"[]", "[]", "[]"}, options,
                [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
    } catch (const std::exception& e) {
      error = e.what();
    }
    finished = true;
  });
  client::Client watcher(d.socket());
  int32_t victim = wait_for_worker(watcher, proto::WorkerState::Running, finished);
  if (victim > 0) CHECK(::kill(victim, SIGKILL) == 0);
  submitter.join();
  REQUIRE(victim > 0);
  CHECK(error.empty());
  REQUIRE(results.size() == 3);
  int failed = 0;
  for (const auto& r : results) {
    if (r.error_no == MeasureErrorNo::RuntimeDevice) {
      ++failed;
      CHECK(r.error_msg.find("signal 9") != std::string::npos);
    } else {
      CHECK(r.error_no == MeasureErrorNo::NoError);
    }
  }
  CHECK(failed == 1);
  auto s = watcher.status();
  CHECK(s.workers_alive == 2);
  for (const auto& w : s.worker_list) CHECK(w.pid != victim);
  CHECK(small_batch_works(d.socket()));
}

TEST_CASE("a run past its timeout is RUN_TIMEOUT, the daemon keeps serving") {
  Daemon d(1);
  auto options = quick_options();
  options.run_timeout = 0.2;  // a naive 1024^3 matmul takes far longer
  client::Client c(d.socket());
  std::vector<MeasureResult> results;
  c.measure(matmul_task(1024), {"[]"}, options,
            [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
  REQUIRE(results.size() == 1);
  CHECK(results[0].error_no == MeasureErrorNo::RunTimeout);
  CHECK(small_batch_works(d.socket()));
  CHECK(c.status().workers_alive == 1);
}

TEST_CASE(
    "a call stuck past the run timeout ends its worker, and the next state of the batch still "
    "builds") {
  // One call of a naive 2048^3 matmul takes seconds: past the timeout and its grace second, the
  // worker reports RUN_TIMEOUT and exits. The daemon must not hand that worker the next build.
  // With the correctness check, the daemon's own deadline for the run is far later.
  Daemon d(1);
  auto options = quick_options();
  options.run_timeout = 0.2;
  options.check_correctness = true;
  client::Client c(d.socket());
  std::vector<MeasureResult> results;
  c.measure(matmul_task(2048), {"[]", "[]"}, options,
            [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
  REQUIRE(results.size() == 2);
  for (const auto& r : results) {
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::RunTimeout);
  }
  CHECK(small_batch_works(d.socket()));
  CHECK(c.status().workers_alive == 1);
}

TEST_CASE("a build past its timeout is BUILD_TIMEOUT, the daemon keeps serving") {
  Daemon d(1);
  auto options = quick_options();
  options.build_timeout = 0.001;  // no compiler finishes in a millisecond
  client::Client c(d.socket());
  std::vector<MeasureResult> results;
  c.measure(
      function_task("conv2d_nchw", {int64_t(1), int64_t(8), int64_t(16), int64_t(16), int64_t(8),
                                    int64_t(3), int64_t(3), int64_t(1), int64_t(1)}),
      {"[]", "[]"}, options, [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
  REQUIRE(results.size() == 2);
  for (const auto& r : results) CHECK(r.error_no == MeasureErrorNo::BuildTimeout);
  CHECK(small_batch_works(d.socket()));
}
