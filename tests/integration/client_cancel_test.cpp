// Cancelling a measurement through the client library against a real daemon: from the result
// callback and from another thread. Every index still gets exactly one result (measured or
// UNKNOWN_ERROR "cancelled"), the request ends with RequestDone, and the connection serves the
// next request.
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

/// 49 distinct schedules of matmul 64 (two splits with every power-of-two factor): each needs
/// a build of its own, so a request of them takes many seconds on one worker.
std::vector<std::string> many_states() {
  std::vector<std::string> out;
  for (int a = 1; a <= 64; a *= 2)
    for (int b = 1; b <= 64; b *= 2)
      out.push_back("[[\"SP\",2,0,64,[" + std::to_string(a) + "],1],[\"SP\",2,2,64,[" +
                    std::to_string(b) + "],1]]");
  return out;
}

/// What a cancelled request delivered.
struct Outcome {
  std::vector<int> seen;  // results per index
  bool in_order = true;
  size_t measured = 0, cancelled = 0, other = 0;
};

struct Collector {
  Outcome o;
  uint32_t next = 0;
  explicit Collector(size_t n) { o.seen.assign(n, 0); }
  void add(uint32_t i, const measure::MeasureResult& r) {
    o.in_order = o.in_order && i == next;
    ++next;
    if (i < o.seen.size()) ++o.seen[i];
    if (r.error_no == measure::MeasureErrorNo::NoError)
      ++o.measured;
    else if (client::is_cancelled(r))
      ++o.cancelled;
    else
      ++o.other;
  }
};

void check_cancelled(const Outcome& o, const proto::RequestDone& done) {
  CHECK(o.in_order);
  for (size_t i = 0; i < o.seen.size(); ++i) {
    INFO("index " << i);
    CHECK(o.seen[i] == 1);
  }
  CHECK(done.count == o.seen.size());
  CHECK(o.other == 0);
  CHECK(o.measured >= 1);
  CHECK(o.cancelled >= 1);  // one worker cannot have started all 49 builds
  CHECK(done.errors == o.cancelled);
}

void check_usable(client::Client& c) {
  int n = 0;
  auto done = c.measure(matmul_task(16), {"[]"}, quick_options(),
                        [&](uint32_t, const measure::MeasureResult& r) {
                          ++n;
                          CHECK(r.error_no == measure::MeasureErrorNo::NoError);
                        });
  CHECK(n == 1);
  CHECK(done.count == 1);
  CHECK(!c.cancelled());
  CHECK(c.status().workers == 1);
}

}  // namespace

TEST_CASE("cancel from the result callback after the first result") {
  Daemon d(1);
  client::Client c(d.socket());
  CHECK(!c.cancel());  // nothing in flight
  auto states = many_states();
  Collector col(states.size());
  auto done = c.measure(matmul_task(64), states, quick_options(),
                        [&](uint32_t i, const measure::MeasureResult& r) {
                          col.add(i, r);
                          if (i == 0) CHECK(c.cancel());
                        });
  check_cancelled(col.o, done);
  CHECK(c.cancelled());
  check_usable(c);
}

TEST_CASE("cancel from another thread while results stream") {
  Daemon d(1);
  client::Client c(d.socket());
  auto states = many_states();
  std::mutex m;
  std::condition_variable cv;
  bool first = false;
  bool cancel_answer = false;
  std::thread canceller([&] {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return first; });
    cancel_answer = c.cancel();
    c.cancel();  // a second cancel changes nothing
  });
  Collector col(states.size());
  auto done = c.measure(matmul_task(64), states, quick_options(),
                        [&](uint32_t i, const measure::MeasureResult& r) {
                          col.add(i, r);
                          if (i == 0) {
                            std::lock_guard<std::mutex> lock(m);
                            first = true;
                            cv.notify_one();
                          }
                        });
  canceller.join();
  CHECK(cancel_answer);
  check_cancelled(col.o, done);
  check_usable(c);
}

TEST_CASE("a cancel that crosses its request's end leaves the connection usable") {
  Daemon d(1);
  client::Client c(d.socket());
  // On its last result the request is already done at the daemon: the Cancel is answered
  // UNKNOWN_REQUEST after RequestDone, and the next exchanges must not trip over it.
  int n = 0;
  auto done = c.measure(matmul_task(16), {"[]"}, quick_options(),
                        [&](uint32_t, const measure::MeasureResult& r) {
                          ++n;
                          CHECK(r.error_no == measure::MeasureErrorNo::NoError);
                          CHECK(c.cancel());
                        });
  CHECK(n == 1);
  CHECK(done.count == 1);
  CHECK(done.errors == 0);
  CHECK(c.status().workers == 1);
  check_usable(c);
}
