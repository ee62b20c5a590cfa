// measurer tune, best and plot against a real daemon: a short tuning run writes one record per
// trial and one per state of its best it measured again, best reads the log back, plot draws it.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>

#include "client/tune/tuner.h"
#include "common/record/record.h"
#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

struct Run {
  int code = -1;
  std::string out;
};

Run run_cli(std::vector<std::string> args, const fs::path& dir) {
  std::string out = (dir / "measurer.out").string();
  fs::remove(out);
  bp::child c(build_path("client/measurer"), bp::args(args), bp::std_out > out,
              bp::std_err > (dir / "measurer.err").string());
  c.wait();
  Run r;
  r.code = c.exit_code();
  std::ifstream in(out);
  std::stringstream s;
  s << in.rdbuf();
  r.out = s.str();
  return r;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("measurer tune writes a log that best and plot read") {
  Daemon d(2);
  TempDir dir;
  std::string log = (dir.path / "tune.json").string();
  auto t = run_cli({"tune", "--workload", "matmul:64,64,64,float32", "--trials", "8", "--batch",
                    "4", "--number", "1", "--min-repeat-ms", "0", "--log", log, "--json",
                    "--socket", d.socket()},
                   dir.path);
  INFO(read_file(dir.path / "measurer.err"));
  REQUIRE(t.code == 0);
  auto j = nlohmann::json::parse(t.out);
  CHECK(j["trials"] == 8);
  CHECK(j["workload_key"] == R"(["matmul", 64, 64, 64, "float32"])");
  CHECK(j["best_gflops"].get<double>() > 0);
  CHECK(j["steps"].is_array());
  // stderr is no terminal: one plain progress line per batch.
  std::string err = read_file(dir.path / "measurer.err");
  CHECK(err.find("measurer tune: batch 1: 4/8 trials, best ") != std::string::npos);
  CHECK(err.find("measurer tune: batch 2: 8/8 trials, best ") != std::string::npos);
  CHECK(err.find("measurer tune: batch 3 (the best ") != std::string::npos);
  CHECK(err.find(" measured again): 8/8 trials, best ") != std::string::npos);
  CHECK(err.find(", ETA 0:00") != std::string::npos);
  CHECK(err.find('\r') == std::string::npos);

  // One record per trial, then the best 4 states measured again, 3 repeats each (3 passes
  // of 1), and the states that then beat them if they all got slower: each state at most once.
  const int confirmed = j["confirmed"].get<int>();
  CHECK(confirmed >= 4);
  CHECK(confirmed <= 8);
  std::ifstream in(log);
  auto records = record::read_records(in);
  REQUIRE(records.size() == 8 + static_cast<size_t>(confirmed));
  std::set<std::string> distinct;
  std::map<std::string, size_t> latest;  // a state's last record
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    CHECK(r.workload_key == R"(["matmul", 64, 64, 64, "float32"])");
    CHECK(r.hardware.num_cores > 0);
    std::string steps = nlohmann::json::parse(r.steps).dump();
    if (i < 8) {
      distinct.insert(steps);
    } else {
      CHECK(distinct.count(steps) == 1);  // a state of the trials
      CHECK(latest[steps] < 8);           // confirmed once
      CHECK(r.result.costs.size() == 3);
    }
    latest[steps] = i;
  }
  CHECK(distinct.size() == 8);  // no state measured twice in the trials

  // best: the lowest mean cost among the successful states, each by its latest record, with
  // its log line; the same as tune's best.
  auto b = run_cli({"best", log, "--json"}, dir.path);
  CHECK(b.code == 0);
  auto bj = nlohmann::json::parse(b.out.substr(0, b.out.find('\n')));
  auto best = record::from_json_line(bj["record"].get<std::string>());
  double best_cost = 1e300;
  for (const auto& [steps, i] : latest) {
    const auto& r = records[i];
    if (r.result.error_no == measure::MeasureErrorNo::NoError) {
      double c = 0;
      for (double x : r.result.costs) c += x;
      best_cost = std::min(best_cost, c / r.result.costs.size());
    }
  }
  double c = 0;
  for (double x : best.result.costs) c += x;
  CHECK(c / best.result.costs.size() == Approx(best_cost));
  CHECK(bj["mean_cost"].get<double>() == Approx(best_cost));
  CHECK(j["best_cost"].get<double>() == Approx(best_cost));
  CHECK(bj["gflops"].get<double>() == Approx(2.0 * 64 * 64 * 64 / best_cost / 1e9));
  CHECK(nlohmann::json::parse(best.steps) == j["steps"]);
  CHECK(bj["record"] == j["record"]);
  auto readable = run_cli({"best", log}, dir.path);
  CHECK(readable.code == 0);
  CHECK(readable.out.find("GFLOP/s") != std::string::npos);

  // plot: an SVG with the curve.
  std::string svg = (dir.path / "curve.svg").string();
  auto p = run_cli({"plot", log, "-o", svg}, dir.path);
  CHECK(p.code == 0);
  std::string text = read_file(svg);
  CHECK(text.rfind("<?xml", 0) == 0);
  CHECK(text.find("<svg") != std::string::npos);
  CHECK(text.find("<polyline") != std::string::npos);
  CHECK(text.find("GFLOP/s") != std::string::npos);
  CHECK(text.find("</svg>") != std::string::npos);

  // --resume: the logged states are not measured again; the log grows by the new trials
  // (--confirm 0: no confirmation).
  auto r2 = run_cli({"tune", "--workload", "matmul:64,64,64,float32", "--trials", "4", "--batch",
                     "4", "--number", "1", "--min-repeat-ms", "0", "--log", log, "--resume",
                     "--confirm", "0", "--json", "--socket", d.socket()},
                    dir.path);
  REQUIRE(r2.code == 0);
  // The log held the 8 trials and their confirmations (more than 4 when the first 4 got slower).
  const size_t logged = 8 + static_cast<size_t>(confirmed);
  CHECK(nlohmann::json::parse(r2.out)["resumed"] == logged);
  CHECK(nlohmann::json::parse(r2.out)["confirmed"] == 0);
  std::ifstream in2(log);
  auto all = record::read_records(in2);
  REQUIRE(all.size() == logged + 4);
  for (size_t i = logged; i < all.size(); ++i)
    distinct.insert(nlohmann::json::parse(all[i].steps).dump());
  CHECK(distinct.size() == 12);
}

TEST_CASE("measurer tune usage errors and an absent daemon") {
  TempDir dir;
  CHECK(run_cli({"tune", "--help"}, dir.path).code == 0);
  CHECK(run_cli({"tune", "--trials", "4"}, dir.path).code == 2);  // no workload
  CHECK(run_cli({"tune", "--workload", "nosuch:1,2"}, dir.path).code == 2);
  CHECK(run_cli({"tune", "--workload", "matmul:16,16,16,float32", "--trials", "4", "--socket",
                 (dir.path / "nobody.sock").string()},
                dir.path)
            .code == 3);
  CHECK(run_cli({"tune", "--workload", "matmul:16,16,16,float32", "--trials", "4",
                 "--num-cores", "1", "--socket", (dir.path / "nobody.sock").string()},
                dir.path)
            .code == 3);
  CHECK(run_cli({"tune", "--workload", "matmul:16,16,16,float32", "--resume"}, dir.path).code ==
        2);  // --resume without --log
  CHECK(run_cli({"best", (dir.path / "missing.json").string()}, dir.path).code == 2);
  // --dry-run needs no daemon and writes a task file of distinct candidates.
  std::string task = (dir.path / "task.json").string();
  CHECK(run_cli({"tune", "--workload", "matmul:64,64,64,float32", "--trials", "6", "--dry-run",
                 task},
                dir.path)
            .code == 0);
  auto tf = nlohmann::json::parse(read_file(task));
  CHECK(tf["states"].size() == 6);
}

TEST_CASE("measurer tune stops when measurerd goes away and --resume continues") {
  TempDir dir;
  std::string log = (dir.path / "tune.json").string();
  size_t logged = 0;
  {
    Daemon d(1);
    bp::ipstream err;
    bp::child c(build_path("client/measurer"),
                bp::args(std::vector<std::string>{
                    "tune", "--workload", "matmul:64,64,64,float32", "--trials", "400", "--batch",
                    "4", "--number", "1", "--min-repeat-ms", "0", "--log", log, "--json",
                    "--socket", d.socket()}),
                bp::std_out > (dir.path / "measurer.out").string(), bp::std_err > err);
    std::string text, line;
    // Progress (stderr is no terminal): one line per batch. The first one: tune is running.
    while (std::getline(err, line)) {
      text += line + "\n";
      if (line.find(" trials, best ") != std::string::npos) break;
    }
    REQUIRE(line.find(" trials, best ") != std::string::npos);
    d.terminate();
    while (std::getline(err, line)) text += line + "\n";
    c.wait();
    INFO(text);
    CHECK(c.exit_code() == 3);
    CHECK(text.find("stopped after") != std::string::npos);
    CHECK(text.find("--resume") != std::string::npos);
    CHECK(text.find(log) != std::string::npos);

    auto j = nlohmann::json::parse(read_file(dir.path / "measurer.out"));
    std::string why = j["stopped"].get<std::string>();  // SHUTTING_DOWN, or the broken socket
    CHECK(!why.empty());
    std::ifstream in(log);
    auto records = record::read_records(in);
    logged = records.size();
    CHECK(j["trials"] == logged);
    CHECK(logged >= 4);
    CHECK(logged < 400);
    // Only real measurements were recorded: no error result made up from the lost connection.
    for (const auto& r : records) {
      CHECK(r.result.error_msg.find(why) == std::string::npos);
      CHECK(r.result.error_msg.find("SHUTTING_DOWN") == std::string::npos);
    }
  }
  Daemon again(1);
  auto r = run_cli({"tune", "--workload", "matmul:64,64,64,float32", "--trials", "4", "--batch",
                    "4", "--number", "1", "--min-repeat-ms", "0", "--log", log, "--resume",
                    "--json", "--socket", again.socket()},
                   dir.path);
  INFO(read_file(dir.path / "measurer.err"));
  REQUIRE(r.code == 0);
  auto rj = nlohmann::json::parse(r.out);
  CHECK(rj["resumed"] == logged);
  std::ifstream in(log);
  // The 4 new trials, then the best 4 measured again, and those that then beat them (the
  // stopped run confirmed none).
  const size_t confirmed = rj["confirmed"].get<size_t>();
  CHECK(confirmed >= 4);
  CHECK(confirmed <= 4 * tune::Tuner::kConfirmRounds);
  CHECK(record::read_records(in).size() == logged + 4 + confirmed);
}

TEST_CASE("Ctrl-C stops measurer tune with its records kept, exit 130") {
  Daemon d(1);
  TempDir dir;
  std::string log = (dir.path / "tune.json").string();
  bp::ipstream err;
  bp::child c(build_path("client/measurer"),
              bp::args(std::vector<std::string>{
                  "tune", "--workload", "matmul:64,64,64,float32", "--trials", "400", "--batch",
                  "4", "--number", "1", "--min-repeat-ms", "0", "--log", log, "--json",
                  "--socket", d.socket()}),
              bp::std_out > (dir.path / "measurer.out").string(), bp::std_err > err);
  std::string text, line;
  while (std::getline(err, line)) {
    text += line + "\n";
    if (line.find(" trials, best ") != std::string::npos) break;
  }
  REQUIRE(line.find(" trials, best ") != std::string::npos);
  REQUIRE(::kill(c.id(), SIGINT) == 0);
  while (std::getline(err, line)) text += line + "\n";
  c.wait();
  INFO(text);
  CHECK(c.exit_code() == 130);
  CHECK(text.find("interrupted after") != std::string::npos);
  CHECK(text.find("--resume") != std::string::npos);
  auto j = nlohmann::json::parse(read_file(dir.path / "measurer.out"));
  CHECK(j["stopped"] == "interrupted");
  std::ifstream in(log);
  auto records = record::read_records(in);
  CHECK(records.size() >= 4);
  CHECK(records.size() < 400);
  CHECK(records.size() >= j["trials"].get<size_t>());
  for (const auto& r : records) CHECK(r.result.error_msg != "cancelled");
  CHECK(d.terminate() == 0);  // the daemon is unharmed
}
