// Real measurerd nodes sharing work through a real redis-server: two nodes on one request, a
// node killed mid-batch, a job that kills every node that takes it, a broker restart
// mid-request, and two requesters on the same nodes.
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "client/lib/broker_client.h"
#include "redis_fixture.h"

using namespace mrd;
using namespace mrd::testing;
using measure::MeasureErrorNo;
using measure::MeasureResult;

namespace {

/// `n` distinct small matmul schedules (distinct split factors of the first loop and their
/// repeats: every one builds).
std::vector<std::string> states(size_t n) {
  static const int factors[] = {1, 2, 4, 8, 16};
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back("[[\"SP\", 2, " + std::to_string(i / 5 % 2) + ", 16, [" +
                  std::to_string(factors[i % 5]) + "], 1]]");
  return out;
}

client::BrokerOptions options_for(const RedisServer& redis, const std::string& key,
                                  size_t window = 32) {
  client::BrokerOptions o;
  o.endpoint = redis.endpoint();
  o.device_key = key;
  o.window = window;
  return o;
}

/// Results as the callback saw them, shared with the test's thread.
struct Seen {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<uint32_t> indices;
  std::vector<MeasureResult> results;
  std::vector<std::string> nodes;
  bool finished = false;
  std::string error;

  client::BrokerClient::OnResult callback() {
    return [this](uint32_t i, const MeasureResult& r, const std::string& node) {
      std::lock_guard<std::mutex> lock(mutex);
      indices.push_back(i);
      results.push_back(r);
      nodes.push_back(node);
      cv.notify_all();
    };
  }
  void wait_for_count(size_t n) {
    std::unique_lock<std::mutex> lock(mutex);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(120),
                        [&] { return indices.size() >= n || finished; }));
  }
  void wait_finished() {
    std::unique_lock<std::mutex> lock(mutex);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(180), [&] { return finished; }));
  }
};

/// A thread joined at destruction, so that a failed REQUIRE in the test unwinds to a report
/// instead of std::terminate (the measurement ends: its nodes outlive it, or its broker
/// reconnection gives up).
struct Joining {
  std::thread thread;
  Joining(std::thread t) : thread(std::move(t)) {}
  Joining(Joining&&) = default;
  ~Joining() {
    if (thread.joinable()) thread.join();
  }
  void join() { thread.join(); }
};

/// Measures on a thread; `seen` records everything.
Joining measure_async(client::BrokerOptions o, measure::Task task,
                          std::vector<std::string> st, measure::MeasureOptions opt, Seen& seen) {
  return std::thread([o = std::move(o), task, st, opt, &seen] {
    try {
      client::BrokerClient c(o);
      c.measure(task, st, opt, seen.callback());
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(seen.mutex);
      seen.error = e.what();
    }
    std::lock_guard<std::mutex> lock(seen.mutex);
    seen.finished = true;
    seen.cv.notify_all();
  });
}

/// Every index once, in order, and the number of results from each node.
std::map<std::string, size_t> check_exactly_once(const Seen& seen, size_t n) {
  REQUIRE(seen.indices.size() == n);
  for (uint32_t i = 0; i < n; ++i) CHECK(seen.indices[i] == i);
  std::map<std::string, size_t> per_node;
  for (const auto& node : seen.nodes) ++per_node[node];
  return per_node;
}

/// Waits until `node` holds a job, by asking the broker (a real condition, polled).
void wait_until_held(const RedisServer& redis, const std::string& key, const std::string& node) {
  auto c = redis.connect();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (held_by(c, key, node) == 0) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

/// Timing options that keep a job on its node for a while (a tenth of a second per run).
measure::MeasureOptions slow_runs() {
  auto o = quick_options();
  o.min_repeat_ms = 100;
  return o;
}

}  // namespace

TEST_CASE("broker: two nodes share one request, results in order, once, with their node") {
  RedisServer redis;
  auto a = start_node(redis, "test-key", "node-a");
  auto b = start_node(redis, "test-key", "node-b");
  Seen seen;
  auto t = measure_async(options_for(redis, "test-key"), matmul_task(16), states(12),
                         quick_options(), seen);
  t.join();
  REQUIRE(seen.error.empty());
  auto per_node = check_exactly_once(seen, 12);
  for (const auto& r : seen.results) CHECK(r.error_no == MeasureErrorNo::NoError);
  CHECK(per_node.count("node-a") == 1);
  CHECK(per_node.count("node-b") == 1);
  CHECK(per_node.size() == 2);

  // Every job was answered and removed: nothing waits, nothing is pending.
  auto c = redis.connect();
  CHECK(c.command({"XLEN", broker::jobs_stream("test-key")}).integer == 0);
  CHECK(c.command({"XPENDING", broker::jobs_stream("test-key"), broker::kGroup}).at(0).integer == 0);
  auto nodes = broker::read_nodes(c, "test-key");
  REQUIRE(nodes.size() == 2);
  CHECK(nodes[0].alive);
  CHECK(nodes[0].measured + nodes[1].measured == 12);
}

TEST_CASE("broker: SIGKILL of a node mid-batch loses no result and doubles none") {
  RedisServer redis;
  auto a = start_node(redis, "kill-key", "node-a");
  Seen seen;
  auto t = measure_async(options_for(redis, "kill-key"), matmul_task(16), states(10), slow_runs(),
                         seen);
  seen.wait_for_count(2);
  wait_until_held(redis, "kill-key", "node-a");
  ::kill(a->pid(), SIGKILL);
  {
    auto c = redis.connect();
    REQUIRE(held_by(c, "kill-key", "node-a") >= 1);  // it died holding a job
  }
  auto b = start_node(redis, "kill-key", "node-b");
  t.join();
  REQUIRE(seen.error.empty());
  auto per_node = check_exactly_once(seen, 10);
  for (const auto& r : seen.results) CHECK(r.error_no == MeasureErrorNo::NoError);
  CHECK(per_node["node-a"] >= 2);
  CHECK(per_node["node-b"] >= 1);
  CHECK(b->log().find("took over job") != std::string::npos);
  auto c = redis.connect();
  CHECK(c.command({"XLEN", broker::jobs_stream("kill-key")}).integer == 0);
}

TEST_CASE("broker: a job that kills every node it reaches ends as an error result") {
  RedisServer redis;
  std::vector<std::string> extra = {"--test-faults", "--broker-max-deliveries", "1"};
  auto a = start_node(redis, "poison-key", "node-a", extra);
  auto hang = quick_options();
  hang.build_timeout = 60;  // the job stays on node-a until it is killed
  Seen seen;
  auto t = measure_async(options_for(redis, "poison-key"), function_task("fault.compiler_hang", {}),
                         {"[]"}, hang, seen);
  wait_until_held(redis, "poison-key", "node-a");
  ::kill(a->pid(), SIGKILL);
  auto b = start_node(redis, "poison-key", "node-b", extra);
  t.join();
  REQUIRE(seen.error.empty());
  check_exactly_once(seen, 1);
  CHECK(seen.results[0].error_no == MeasureErrorNo::UnknownError);
  CHECK(seen.results[0].error_msg.find("delivered 2 times") != std::string::npos);
  CHECK(seen.nodes[0] == "node-b");
  CHECK(b->log().find("answered with an error, not measured again") != std::string::npos);
}

TEST_CASE("broker: a broker restart mid-request loses no result and doubles none") {
  RedisServer redis;
  auto a = start_node(redis, "restart-key", "node-a");
  Seen seen;
  auto t = measure_async(options_for(redis, "restart-key", 4), matmul_task(16), states(10),
                         slow_runs(), seen);
  seen.wait_for_count(3);
  redis.kill();  // every key is lost: the client sends the unanswered jobs again
  {
    // Without its broker the node still serves its local clients.
    client::Client local(a->socket());
    std::vector<MeasureResult> got;
    local.measure(matmul_task(16), {"[]"}, quick_options(),
                  [&](uint32_t, const MeasureResult& r) { got.push_back(r); });
    REQUIRE(got.size() == 1);
    CHECK(got[0].error_no == MeasureErrorNo::NoError);
  }
  redis.start();
  t.join();
  REQUIRE(seen.error.empty());
  check_exactly_once(seen, 10);
  for (const auto& r : seen.results) {
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::NoError);
  }
  CHECK(a->log().find("reachable again") != std::string::npos);
}

TEST_CASE("broker: a small request is not starved by a large one on the same nodes") {
  RedisServer redis;
  auto a = start_node(redis, "fair-key", "node-a");
  Seen large, small;
  auto tl = measure_async(options_for(redis, "fair-key", 2), matmul_task(16), states(24),
                          quick_options(), large);
  large.wait_for_count(1);
  auto ts = measure_async(options_for(redis, "fair-key", 2), matmul_task(24), states(3),
                          quick_options(), small);
  small.wait_finished();
  size_t large_done_then;
  {
    std::lock_guard<std::mutex> lock(large.mutex);
    large_done_then = large.indices.size();
  }
  ts.join();
  tl.join();
  REQUIRE(small.error.empty());
  REQUIRE(large.error.empty());
  check_exactly_once(small, 3);
  check_exactly_once(large, 24);
  // The large request holds at most two jobs in the queue, so the small one's three wait
  // behind a few of its jobs, not behind all of them.
  CHECK(large_done_then <= 16);
}
