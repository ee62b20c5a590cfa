// measurerd-worker --once as a real child process: result lines, exit codes, and a kernel
// call that never ends within the run timeout (the worker reports RUN_TIMEOUT and goes on
// with the next state in a fresh process image).
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/measure/system_compiler.h"
#include "tests/support/temp_dir.h"

using mrd::measure::ProcessOutcome;
using mrd::measure::run_process;

namespace {

const std::string kWorker = std::string(MEASURERD_BINARY_DIR) + "/daemon/measurerd-worker";

/// `name` in this process's scratch directory (task files, the worker's cache).
std::string scratch(const std::string& name) {
  static const mrd::testing::TempDir dir("mrd-once-test");
  return dir.file(name);
}

std::string write_task(const std::string& name, const std::string& text) {
  std::string path = scratch(name);
  std::ofstream(path) << text;
  return path;
}

std::vector<nlohmann::json> lines_of(const std::string& output) {
  std::vector<nlohmann::json> out;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '{') out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

ProcessOutcome worker(std::vector<std::string> args) {
  args.insert(args.end(), {"--cache-dir", scratch("cache")});
  return run_process(kWorker, args, 300);
}

}  // namespace

TEST_CASE("worker --once: one result line per state, errors included") {
  std::string task = write_task("small.json", R"({
    "workload": {"function": "matmul", "args": [32, 16, 24, "float32"]},
    "options": {"number": 1, "min_repeat_ms": 0, "check_correctness": true},
    "states": [[], [["SP", 2, 0, 32, [8], 1], ["AN", 2, 1, 2]], [["SP", 2, 7, 32, [8], 1]]]})");
  ProcessOutcome p = worker({"--once", task});
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  auto lines = lines_of(p.output);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0]["error"] == "NO_ERROR");
  CHECK(lines[0]["gflops"].get<double>() > 0);
  CHECK(lines[1]["error_no"] == 0);
  CHECK(lines[2]["error"] == "INSTANTIATION_ERROR");
  for (int i = 0; i < 3; ++i) CHECK(lines[i]["index"] == i);

  ProcessOutcome strict = worker({"--once", task, "--fail-on-error"});
  CHECK(strict.exit_code == 3);
  ProcessOutcome corrupt = worker({"--once", task, "--test-corrupt-output"});
  CHECK(lines_of(corrupt.output).at(0)["error"] == "WRONG_ANSWER");
}

TEST_CASE("worker --once: debug logs go to stderr, stdout holds result lines only") {
  std::string task = write_task("logged.json", R"({
    "workload": {"function": "matmul", "args": [16, 16, 16, "float32"]},
    "options": {"number": 1, "min_repeat_ms": 0},
    "states": [[["SP", 2, 0, 16, [4], 1]], []]})");
  ProcessOutcome p = run_process("/bin/sh", {"-c", "SPDLOG_LEVEL=debug exec \"$0\" --once \"$1\" --cache-dir \"$2\" 2>/dev/null",
                                             kWorker, task, scratch("cache")}, 300);
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  std::istringstream out(p.output);
  int results = 0;
  for (std::string line; std::getline(out, line); ++results) CHECK(nlohmann::json::parse(line)["error"] == "NO_ERROR");
  CHECK(results == 2);
  ProcessOutcome both = run_process("/bin/sh", {"-c", "SPDLOG_LEVEL=debug exec \"$0\" --once \"$1\" --cache-dir \"$2\" 2>&1 >/dev/null",
                                                kWorker, task, scratch("cache")}, 300);
  CHECK(both.output.find("lower: after") != std::string::npos);
}

TEST_CASE("worker --once: bad usage and bad task files exit with 2") {
  CHECK(worker({"--once", write_task("typo.json", R"({"workload": {"function": "matmul", "args": [8, 8, 8, "float32"]}, "states": [], "optoins": {}})")}).exit_code == 2);
  CHECK(worker({"--once", scratch("missing.json")}).exit_code == 2);
  // Past the 64 MiB limit: refused with the limit named, however the file is read.
  std::string big = R"({"workload": {"function": "matmul", "args": [8, 8, 8, "float32"]}, "states": [])";
  big += std::string((64 << 20) - big.size() + 1, ' ') + "}";
  ProcessOutcome too_big = worker({"--once", write_task("big.json", big)});
  CHECK(too_big.exit_code == 2);
  CHECK(too_big.output.find("larger than 67108864 bytes") != std::string::npos);
  CHECK(worker({"--no-such-switch"}).exit_code == 2);
  CHECK(worker({}).exit_code == 2);
  ProcessOutcome help = worker({"--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.output.find("--once") != std::string::npos);
}

TEST_CASE("worker --once: a call stuck past the run timeout gives RUN_TIMEOUT and the next state still runs") {
  // One call of a naive 2048x2048x1024 matmul takes seconds; the timeout is 0.2 s.
  std::string task = write_task("stuck.json", R"({
    "workload": {"function": "matmul", "args": [2048, 1024, 2048, "float32"]},
    "options": {"number": 1, "min_repeat_ms": 0, "run_timeout": 0.2},
    "states": [[], []]})");
  ProcessOutcome p = worker({"--once", task});
  INFO(p.output);
  CHECK(p.exit_code == 0);
  auto lines = lines_of(p.output);
  REQUIRE(lines.size() == 2);
  for (int i = 0; i < 2; ++i) {
    CHECK(lines[i]["index"] == i);
    CHECK(lines[i]["error"] == "RUN_TIMEOUT");
  }
}
