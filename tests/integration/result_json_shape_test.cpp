// One JSON shape for a result everywhere: measurerd-worker --once, measurer submit --json,
// replay --json, tune --json and best --json print the same result object (the fields that
// proto-docs/task-format.md lists), against a real daemon.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

std::vector<nlohmann::json> json_lines(const std::string& exe, const std::vector<std::string>& args,
                                       const fs::path& dir, int expected_code = 0) {
  fs::path out = dir / "out.jsonl", err = dir / "err.txt";
  fs::remove(out);  // the redirection does not truncate
  fs::remove(err);
  bp::child c(exe, bp::args(args), bp::std_out > out.string(), bp::std_err > err.string());
  c.wait();
  INFO(file_text(err));
  REQUIRE(c.exit_code() == expected_code);
  std::vector<nlohmann::json> lines;
  std::istringstream in(file_text(out));
  for (std::string l; std::getline(in, l);) lines.push_back(nlohmann::json::parse(l));
  return lines;
}

std::set<std::string> keys(const nlohmann::json& j, std::set<std::string> without = {}) {
  std::set<std::string> k;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!without.count(it.key())) k.insert(it.key());
  return k;
}

const std::set<std::string> kResultFields = {
    "error_no", "error",         "error_msg",   "costs",     "mean_cost",     "gflops",
    "all_cost", "build_seconds", "run_seconds", "cache_hit", "timing_skipped", "timing_policy",
    "timestamp"};

}  // namespace

TEST_CASE("One result shape from worker --once, submit, replay, tune and best") {
  Daemon d(1);
  TempDir dir;
  fs::path task = dir.path / "task.json";
  std::ofstream(task) << R"({"workload": {"function": "matmul", "args": [16, 16, 16, "float32"]},
    "options": {"number": 1, "repeat": 1, "min_repeat_ms": 0},
    "states": [[], [["SP", 2, 0, 16, [4], 1]], [["SP", 99, 0, 16, [4], 1]]]})";

  auto once =
      json_lines(build_path("daemon/measurerd-worker"),
                 {"--once", task.string(), "--cache-dir", (dir.path / "cache").string()}, dir.path);
  fs::path log = dir.path / "submit.log";
  auto submit =
      json_lines(build_path("client/measurer"),
                 {"submit", task.string(), "--json", "--log", log.string(), "--socket", d.socket()},
                 dir.path, 1);  // state 2 is an INSTANTIATION_ERROR
  REQUIRE(once.size() == 3);
  REQUIRE(submit.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(keys(once[i], {"index"}) == kResultFields);
    CHECK(keys(submit[i], {"index"}) == kResultFields);
    CHECK(once[i]["index"] == i);
    CHECK(submit[i]["index"] == i);
    CHECK(once[i]["error"] == submit[i]["error"]);
  }
  CHECK(once[0]["gflops"].is_number());
  CHECK(once[2]["error"] == "INSTANTIATION_ERROR");
  CHECK(once[2]["gflops"].is_null());
  CHECK(submit[2]["gflops"].is_null());

  auto replay = json_lines(build_path("client/measurer"),
                           {"replay", log.string(), "--json", "--socket", d.socket()}, dir.path,
                           1);  // the failed state is logged, and fails again
  REQUIRE(replay.size() == 3);
  for (const auto& j : replay)
    CHECK(keys(j, {"index", "workload_key", "old_cost", "new_cost"}) == kResultFields);

  fs::path tune_log = dir.path / "tune.log";
  auto tune = json_lines(build_path("client/measurer"),
                         {"tune", "-w", "matmul:16,16,16,float32", "-n", "4", "--batch", "4",
                          "--number", "1", "--min-repeat-ms", "0", "--json", "--quiet", "--log",
                          tune_log.string(), "--socket", d.socket()},
                         dir.path);
  REQUIRE(tune.size() == 1);
  CHECK(keys(tune[0]["result"]) == kResultFields);
  CHECK(tune[0]["result"]["mean_cost"] == tune[0]["best_cost"]);

  auto best =
      json_lines(build_path("client/measurer"), {"best", tune_log.string(), "--json"}, dir.path);
  REQUIRE(best.size() == 1);
  CHECK(keys(best[0]["result"]) == kResultFields);
  CHECK(best[0]["mean_cost"].get<double>() == Approx(tune[0]["best_cost"].get<double>()));
  CHECK(best[0]["gflops"].get<double>() == Approx(tune[0]["best_gflops"].get<double>()));
  CHECK(best[0]["result"]["gflops"] == best[0]["gflops"]);
}
