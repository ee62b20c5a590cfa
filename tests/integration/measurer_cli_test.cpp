// The measurer command against a real daemon: output formats, record logs, replay, exit codes.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/record/record.h"
#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

}  // namespace

TEST_CASE("measurer submit, --json, --log and replay against a real daemon") {
  Daemon d(1);
  TempDir dir;
  auto task = dir.path / "task.json";
  write_file(task, R"({"workload": {"function": "matmul", "args": [32, 32, 32, "float32"]},
    "options": {"number": 1, "repeat": 2, "min_repeat_ms": 0},
    "states": [[], [["SP", 2, 0, 32, [8], 1]]]})");
  auto log = (dir.path / "tuning.log").string();
  auto o = run_measurer({"submit", task.string(), "--json", "--socket", d.socket(), "--log", log},
                        dir.path);
  CHECK(o.code == 0);
  REQUIRE(o.lines.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    auto j = nlohmann::json::parse(o.lines[i]);
    CHECK(j["index"] == i);
    CHECK(j["error"] == "NO_ERROR");
    CHECK(j["costs"].size() == 2);
    CHECK(j["timing_policy"] == "exclusive");
    // GFLOP/s: matmul 32 is 2 * 32^3 flops, over the mean cost.
    REQUIRE(j["gflops"].is_number());
    CHECK(j["gflops"].get<double>() ==
          Approx(2.0 * 32 * 32 * 32 / j["mean_cost"].get<double>() / 1e9));
  }
  std::ifstream in(log);
  auto records = record::read_records(in);
  REQUIRE(records.size() == 2);
  CHECK(records[0].workload_key == R"(["matmul", 32, 32, 32, "float32"])");
  CHECK(records[1].steps == R"([["SP",2,0,32,[8],1]])");
  CHECK(records[0].result.costs.size() == 2);

  auto r = run_measurer({"replay", log, "--json", "--socket", d.socket()}, dir.path);
  CHECK(r.code == 0);
  REQUIRE(r.lines.size() == 2);
  auto j = nlohmann::json::parse(r.lines[1]);
  CHECK(j["old_cost"].get<double>() > 0);
  CHECK(j["new_cost"].get<double>() > 0);

  auto table = run_measurer({"submit", task.string(), "--socket", d.socket()}, dir.path);
  CHECK(table.code == 0);
  REQUIRE(table.lines.size() == 3);  // header + two rows
  CHECK(table.lines[1].find("NO_ERROR") != std::string::npos);
  CHECK(table.lines[0].find("GFLOP/s") != std::string::npos);
  {
    // The GFLOP/s column holds a positive number for a measured row.
    std::istringstream row(table.lines[1]);
    std::string index, result, cost, rate;
    row >> index >> result >> cost >> rate;
    CHECK(std::stod(rate) > 0);
  }

  write_file(task, R"({"workload": {"function": "matmul", "args": [32, 32, 32, "float32"]},
    "states": [[["XX"]]]})");
  CHECK(run_measurer({"submit", task.string(), "--socket", d.socket()}, dir.path).code == 1);
  auto bad = run_measurer({"submit", task.string(), "--json", "--socket", d.socket()}, dir.path);
  CHECK(bad.code == 1);
  REQUIRE(bad.lines.size() == 1);
  CHECK(nlohmann::json::parse(bad.lines[0])["gflops"].is_null());

  auto status = run_measurer({"status", "--json", "--socket", d.socket()}, dir.path);
  CHECK(status.code == 0);
  REQUIRE(status.lines.size() == 1);
  CHECK(nlohmann::json::parse(status.lines[0])["workers"] == 1);
}

TEST_CASE("measurer exit codes without a daemon") {
  TempDir dir;
  CHECK(run_measurer({"--help"}, dir.path).code == 0);
  CHECK(run_measurer({"submit", "--help"}, dir.path).code == 0);
  CHECK(run_measurer({"bogus"}, dir.path).code == 2);
  write_file(dir.path / "bad.json", "{\"states\": 3}");
  CHECK(run_measurer({"submit", (dir.path / "bad.json").string()}, dir.path).code == 2);
  write_file(
      dir.path / "ok.json",
      R"({"workload": {"function": "matmul", "args": [8, 8, 8, "float32"]}, "states": [[]]})");
  CHECK(run_measurer({"submit", (dir.path / "ok.json").string(), "--socket",
                      (dir.path / "nobody.sock").string()},
                     dir.path)
            .code == 3);
  auto w = run_measurer({"workloads"}, dir.path);
  CHECK(w.code == 0);
  bool has_matmul = false;
  for (const auto& l : w.lines) has_matmul = has_matmul || l == "matmul(N, L, M, dtype)";
  CHECK(has_matmul);
}

/// A task file of 49 distinct schedules of matmul N (N a multiple of 64): one worker takes
/// many seconds over them.
std::string slow_task(int n) {
  std::string states;
  for (int a = 1; a <= 64; a *= 2)
    for (int b = 1; b <= 64; b *= 2)
      states += std::string(states.empty() ? "" : ",") + "[[\"SP\",2,0," + std::to_string(n) +
                ",[" + std::to_string(a) + "],1],[\"SP\",2,2," + std::to_string(n) + ",[" +
                std::to_string(b) + "],1]]";
  std::string size = std::to_string(n);
  return R"({"workload": {"function": "matmul", "args": [)" + size + ", " + size + ", " + size +
         R"(, "float32"]}, "options": {"number": 1, "repeat": 1, "min_repeat_ms": 0}, "states": [)" +
         states + "]}";
}

/// Runs measurer with stdout on a pipe, sends SIGINT once `skip` lines have been read, and
/// returns every stdout line, the exit code and stderr.
struct Interrupted {
  int code = -1;
  std::vector<std::string> lines;
  std::string err;
};

Interrupted interrupt_after(std::vector<std::string> args, size_t skip, const fs::path& dir) {
  bp::ipstream out;
  auto err_path = (dir / "measurer.err").string();
  bp::child c(build_path("client/measurer"), bp::args(args), bp::std_out > out,
              bp::std_err > err_path);
  Interrupted r;
  std::string line;
  while (r.lines.size() < skip && std::getline(out, line)) r.lines.push_back(line);
  REQUIRE(r.lines.size() == skip);  // the request is streaming
  REQUIRE(::kill(c.id(), SIGINT) == 0);
  while (std::getline(out, line)) r.lines.push_back(line);
  c.wait();
  r.code = c.exit_code();
  std::ifstream in(err_path);
  r.err.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

TEST_CASE("Ctrl-C cancels measurer submit: results so far, cancelled count, exit 130") {
  Daemon d(1);
  TempDir dir;
  auto task = dir.path / "task.json";
  write_file(task, slow_task(64));
  auto log = (dir.path / "tuning.log").string();
  // --json: the first result line, then Ctrl-C.
  auto r = interrupt_after({"submit", task.string(), "--json", "--socket", d.socket(), "--log", log},
                           1, dir.path);
  INFO(r.err);
  CHECK(r.code == 130);
  REQUIRE(r.lines.size() == 49);  // every state has its line, in order
  size_t cancelled = 0, measured = 0;
  for (size_t i = 0; i < r.lines.size(); ++i) {
    auto j = nlohmann::json::parse(r.lines[i]);
    CHECK(j["index"] == i);
    if (j["error"] == "NO_ERROR")
      ++measured;
    else if (j["error"] == "UNKNOWN_ERROR" && j["error_msg"] == "cancelled")
      ++cancelled;
  }
  CHECK(measured + cancelled == 49);
  CHECK(measured >= 1);
  CHECK(cancelled >= 1);
  CHECK(r.err.find("cancelling the request") != std::string::npos);
  CHECK(r.err.find(std::to_string(cancelled) + " cancelled") != std::string::npos);
  // The log holds the measured states only.
  std::ifstream in(log);
  auto records = record::read_records(in);
  CHECK(records.size() == measured);
  for (const auto& rec : records) CHECK(rec.result.error_no == measure::MeasureErrorNo::NoError);

  // The table (other schedules, so nothing comes from the cache): header and first row, then
  // Ctrl-C; the table shows the measured rows, the summary names the cancelled ones.
  write_file(task, slow_task(128));
  auto t = interrupt_after({"submit", task.string(), "--socket", d.socket()}, 2, dir.path);
  INFO(t.err);
  CHECK(t.code == 130);
  REQUIRE(t.lines.size() >= 2);
  CHECK(t.lines[0].find("GFLOP/s") != std::string::npos);
  for (size_t i = 1; i < t.lines.size(); ++i) CHECK(t.lines[i].find("NO_ERROR") != std::string::npos);
  size_t rows = t.lines.size() - 1;
  CHECK(rows < 49);
  CHECK(t.err.find(std::to_string(49 - rows) + " cancelled (#") != std::string::npos);
}

TEST_CASE("measurer submit --skip-hopeless: the first state is timed in full, each line says whether it was skipped") {
  Daemon d(1);
  TempDir dir;
  auto task = dir.path / "task.json";
  write_file(task, R"({"workload": {"function": "matmul", "args": [32, 32, 32, "float32"]},
    "options": {"number": 1, "repeat": 2, "min_repeat_ms": 0},
    "states": [[], [], []]})");
  auto o = run_measurer({"submit", task.string(), "--json", "--skip-hopeless", "--skip-hopeless-factor", "1",
                         "--socket", d.socket()},
                        dir.path);
  CHECK(o.code == 0);
  REQUIRE(o.lines.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    auto j = nlohmann::json::parse(o.lines[i]);
    REQUIRE(j["timing_skipped"].is_boolean());
    bool skipped = j["timing_skipped"].get<bool>();
    if (i == 0) CHECK_FALSE(skipped);
    CHECK(j["error"] == "NO_ERROR");
    CHECK(j["costs"].size() == (skipped ? 1u : 2u));
  }
  // A factor below 1 would skip candidates faster than the best: a usage error.
  auto bad = run_measurer({"submit", task.string(), "--skip-hopeless-factor", "0.5", "--socket", d.socket()},
                          dir.path);
  CHECK(bad.code == 2);
}
