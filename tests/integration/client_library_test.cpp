// The installed client library's API (include/measurerd) against a real daemon: tasks from
// built-in workloads and task files, measuring, cancelling, records, and its errors.
#include <measurerd/measurerd.h>

#include <catch2/catch.hpp>

#include "daemon_fixture.h"

using namespace mrd::testing;

TEST_CASE("measurerd::Task names a built-in workload or refuses it") {
  auto t = measurerd::Task::builtin("matmul:16,16,16,float32", "c");
  CHECK(t.workload_key() == R"(["matmul", 16, 16, 16, "float32"])");
  CHECK(t.target() == "c");
  CHECK(t.flop_count() == 2.0 * 16 * 16 * 16);
  CHECK_THROWS_AS(measurerd::Task::builtin("no_such_workload:1"), measurerd::InvalidInput);
  CHECK_THROWS_AS(measurerd::Task::builtin("matmul:16"), measurerd::InvalidInput);
  CHECK_THROWS_AS(measurerd::parse_task_file("{\"workload\": 1"), measurerd::InvalidInput);
  CHECK_THROWS_WITH(measurerd::read_task_file("/nonexistent/task.json"),
                    Catch::Contains("cannot open task file /nonexistent/task.json"));
}

TEST_CASE("measurerd::Client measures, cancels and reports a missing daemon") {
  Daemon d(1);
  measurerd::Client c(d.socket());
  CHECK(c.server().workers == 1);
  CHECK(c.server().max_states > 0);

  auto tf = measurerd::parse_task_file(
      R"({"workload": {"function": "matmul", "args": [16, 16, 16, "float32"]},
      "options": {"number": 1, "repeat": 2, "min_repeat_ms": 0},
      "states": [[], [["SP", 2, 0, 16, [4], 1]], [["SP", 99, 0, 16, [4], 1]]]})");
  CHECK(tf.options.repeat == 2);
  std::vector<measurerd::MeasureResult> results;
  auto summary = c.measure(tf.task, tf.states, tf.options,
                           [&](std::size_t i, const measurerd::MeasureResult& r) {
                             CHECK(i == results.size());
                             results.push_back(r);
                           });
  CHECK(summary.count == 3);
  CHECK(summary.errors == 1);
  REQUIRE(results.size() == 3);
  CHECK(results[0].ok());
  CHECK(results[0].costs.size() == 2);
  CHECK(measurerd::gflops(results[0], tf.task.flop_count()) > 0);
  CHECK(results[2].error_no == measurerd::ErrorNo::InstantiationError);
  CHECK(std::string(measurerd::error_name(results[2].error_no)) == "INSTANTIATION_ERROR");

  // Cancelled from the first result: the states not yet started come back cancelled.
  std::vector<std::string> many(40, "[]");
  std::size_t cancelled = 0, seen = 0;
  c.measure(tf.task, many, tf.options, [&](std::size_t, const measurerd::MeasureResult& r) {
    if (seen++ == 0) CHECK(c.cancel());
    cancelled += measurerd::is_cancelled(r);
  });
  CHECK(seen == many.size());
  CHECK(cancelled > 0);
  CHECK(c.status().workers == 1);  // the connection is still usable

  CHECK_THROWS_WITH(
      measurerd::Client((d.dir() / "nobody.sock").string()),
      Catch::Contains("systemctl start measurerd.socket") && Catch::Contains("MEASURERD_SOCKET"));
}

TEST_CASE("measurerd records round-trip through a TVM log") {
  TempDir dir;
  auto task = measurerd::Task::builtin("matmul:16,16,16,float32");
  measurerd::MeasureResult r;
  r.costs = {1e-4, 2e-4};
  r.all_cost = 0.5;
  r.timestamp = 1700000000;
  auto rec = measurerd::make_record(task, R"([["SP", 2, 0, 16, [4], 1]])", r);
  CHECK(rec.workload_key == task.workload_key());
  auto line = measurerd::to_record_line(rec);
  auto back = measurerd::parse_record_line(line);
  CHECK(back.steps == R"([["SP",2,0,16,[4],1]])");
  CHECK(back.result.costs == r.costs);
  CHECK(measurerd::mean_cost(back.result) == Approx(1.5e-4));

  auto log = (dir.path / "x.log").string();
  measurerd::append_record(log, rec);
  measurerd::append_record(log, back);
  auto all = measurerd::read_record_log(log);
  REQUIRE(all.size() == 2);
  CHECK(measurerd::to_record_line(all[1]) == line);
  CHECK_THROWS_AS(measurerd::parse_record_line("{}"), measurerd::InvalidInput);
}
