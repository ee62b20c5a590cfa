// A real measurerd with real spawned workers, measuring real workloads over its socket.
#include <catch2/catch.hpp>
#include <thread>

#include "common/ir/te.h"
#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;
using measure::MeasureErrorNo;
using measure::MeasureResult;

namespace {

std::vector<std::string> matmul_states(int64_t n) {
  std::string N = std::to_string(n);
  return {
      "[]",
      "[[\"SP\", 2, 0, " + N + ", [8], 1]]",
      "[[\"SP\", 2, 0, " + N + ", [8], 1], [\"AN\", 2, 0, 3]]",
      "[[\"SP\", 2, 1, " + N + ", [16], 1], [\"RE\", 2, [0, 1, 3, 2]], [\"AN\", 2, 3, 2]]",
  };
}

struct Collected {
  std::vector<uint32_t> indices;
  std::vector<MeasureResult> results;
  client::Client::OnResult callback() {
    return [this](uint32_t i, const MeasureResult& r) {
      indices.push_back(i);
      results.push_back(r);
    };
  }
};

}  // namespace

TEST_CASE("two clients at once: every input gets exactly one result, in order") {
  Daemon d(2);
  auto options = quick_options();
  options.check_correctness = true;
  struct Run {
    int64_t n;
    Collected got;
    proto::RequestDone done;
    std::string error;
  } runs[2] = {{64, {}, {}, {}}, {48, {}, {}, {}}};
  std::vector<std::thread> threads;
  for (auto& run : runs) {
    threads.emplace_back([&d, &run, options] {
      try {
        client::Client c(d.socket());
        auto states = matmul_states(run.n);
        auto again = states;
        states.insert(states.end(), again.begin(), again.end());  // 8 inputs, repeats cached
        run.done = c.measure(matmul_task(run.n), states, options, run.got.callback());
      } catch (const std::exception& e) {
        run.error = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& run : runs) {
    INFO("matmul " << run.n);
    CHECK(run.error.empty());
    REQUIRE(run.got.indices.size() == 8);
    for (uint32_t i = 0; i < 8; ++i) CHECK(run.got.indices[i] == i);
    for (const auto& r : run.got.results) {
      CHECK(r.error_no == MeasureErrorNo::NoError);
      CHECK(r.error_msg == "");
      CHECK(r.costs.size() == 1);
      CHECK(r.policy == measure::TimingPolicy::Exclusive);
    }
    CHECK(run.done.count == 8);
    CHECK(run.done.errors == 0);
  }
  client::Client c(d.socket());
  auto s = c.status();
  CHECK(s.completed == 16);
  CHECK(s.cache_hits >= 8);  // the second half of each batch repeats the first
}

TEST_CASE("a tensor workload built inside the client only is measured") {
  Daemon d(1);
  // The seed's chain: relu(relu(matmul)), built here at run time, known to no worker.
  auto A = ir::placeholder({32, 32}, "A");
  auto B = ir::placeholder({32, 32}, "B");
  auto k = ir::reduce_axis(0, 32, "k");
  auto C =
      ir::compute({32, 32}, [&](ir::Var i, ir::Var j) { return ir::sum(A(i, k) * B(k, j), {k}); },
                  "C", {"i", "j"});
  auto D =
      ir::compute({32, 32}, [&](ir::Var i, ir::Var j) { return ir::max(C(i, j), ir::Expr(0.0f)); },
                  "D", {"i", "j"});
  auto E =
      ir::compute({32, 32}, [&](ir::Var i, ir::Var j) { return ir::max(D(i, j), ir::Expr(0.0f)); },
                  "E", {"i", "j"});
  measure::Task task;
  task.workload = registry::TensorWorkload{"", {A, B, E}};
  auto options = quick_options();
  options.check_correctness = true;
  client::Client c(d.socket());
  Collected got;
  auto done = c.measure(task, {"[]", "[[\"CI\", 3]]"}, options, got.callback());
  REQUIRE(got.results.size() == 2);
  for (const auto& r : got.results) {
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::NoError);
  }
  CHECK(done.errors == 0);
}

TEST_CASE("function workloads by name, an unknown name is an instantiation error") {
  Daemon d(1);
  client::Client c(d.socket());
  Collected good, bad;
  c.measure(function_task("softmax", {int64_t(16), int64_t(32)}), {"[]"}, quick_options(),
            good.callback());
  REQUIRE(good.results.size() == 1);
  CHECK(good.results[0].error_no == MeasureErrorNo::NoError);

  auto done = c.measure(function_task("no_such_workload", {int64_t(1)}), {"[]", "[]"},
                        quick_options(), bad.callback());
  REQUIRE(bad.results.size() == 2);
  for (const auto& r : bad.results) {
    CHECK(r.error_no == MeasureErrorNo::InstantiationError);
    CHECK(r.error_msg.find("no_such_workload") != std::string::npos);
    CHECK(r.error_msg.find("matmul") != std::string::npos);  // lists what is known
  }
  CHECK(done.errors == 2);
}

TEST_CASE("the shared timing policy is reported in every result") {
  Daemon d(2, {"--timing-policy", "shared"});
  client::Client c(d.socket());
  CHECK(c.welcome().policy == measure::TimingPolicy::Shared);
  Collected got;
  c.measure(matmul_task(32), {"[]", "[]", "[]"}, quick_options(), got.callback());
  REQUIRE(got.results.size() == 3);
  for (const auto& r : got.results) CHECK(r.policy == measure::TimingPolicy::Shared);
}
