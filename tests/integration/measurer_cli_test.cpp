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

struct Output {
  int code = -1;
  std::vector<std::string> lines;
};

Output run_measurer(std::vector<std::string> args, const fs::path& dir) {
  std::string out = (dir / "measurer.out").string();
  fs::remove(out);  // the redirection does not truncate
  bp::child c(build_path("client/measurer"), bp::args(args), bp::std_out > out,
              bp::std_err > (dir / "measurer.err").string());
  c.wait();
  Output o;
  o.code = c.exit_code();
  std::ifstream in(out);
  for (std::string l; std::getline(in, l);) o.lines.push_back(l);
  return o;
}

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

  write_file(task, R"({"workload": {"function": "matmul", "args": [32, 32, 32, "float32"]},
    "states": [[["XX"]]]})");
  CHECK(run_measurer({"submit", task.string(), "--socket", d.socket()}, dir.path).code == 1);

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
