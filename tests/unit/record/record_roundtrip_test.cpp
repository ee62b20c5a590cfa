// Record logs survive a round trip: every line of TVM's reference logs reads and writes back as
// the same JSON, and a log written by append_record reads back to the same records.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/record/record.h"
#include "tests/support/temp_dir.h"

using namespace mrd::record;
namespace fs = std::filesystem;

TEST_CASE("every TVM reference record line writes back as the same JSON") {
  size_t files = 0, lines = 0;
  for (const auto& entry : fs::directory_iterator(MEASURERD_TVM_REFERENCE_DIR)) {
    std::string name = entry.path().filename().string();
    if (name.size() < 13 || name.substr(name.size() - 13) != ".records.json") continue;
    ++files;
    std::ifstream in(entry.path());
    REQUIRE(in);
    for (std::string line; std::getline(in, line);) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      ++lines;
      INFO(name << ": " << line);
      std::string back = to_json_line(from_json_line(line));
      CHECK(nlohmann::json::parse(back) == nlohmann::json::parse(line));
      // And a second trip changes nothing at all.
      CHECK(to_json_line(from_json_line(back)) == back);
    }
  }
  CHECK(files == 7);
  CHECK(lines >= 7 * 13);
}

TEST_CASE("a log written with append_record reads back record for record") {
  mrd::testing::TempDir dir("record-roundtrip");
  std::string path = dir.file("log.json");
  mrd::measure::Task t;
  t.workload = mrd::registry::FunctionWorkload{
      "matmul", {int64_t(64), int64_t(64), int64_t(64), std::string("float32")}};
  t.hardware.num_cores = 2;
  std::vector<Record> written;
  for (int i = 0; i < 5; ++i) {
    mrd::measure::MeasureResult r;
    if (i == 3) {
      r.error_no = mrd::measure::MeasureErrorNo::CompileHost;
    } else {
      r.costs = {1e-3 * (i + 1), 1.25e-3 * (i + 1)};
    }
    r.all_cost = 0.5 + i;
    r.timestamp = 1795964369 + i;
    std::string steps = i == 0 ? "[]" : "[[\"SP\", 2, 0, 64, [" + std::to_string(1 << i) + "], 1]]";
    written.push_back(make_record(t, steps, r));
    append_record(path, written.back());
  }
  std::ifstream in(path);
  auto read = read_records(in);
  REQUIRE(read.size() == written.size());
  for (size_t i = 0; i < read.size(); ++i) {
    CHECK(to_json_line(read[i]) == to_json_line(written[i]));
    CHECK(read[i].workload_key == written[i].workload_key);
    CHECK(read[i].hardware.num_cores == 2);
    CHECK(read[i].result.error_no == written[i].result.error_no);
    CHECK(read[i].result.all_cost == written[i].result.all_cost);
    CHECK(nlohmann::json::parse(read[i].steps) == nlohmann::json::parse(written[i].steps));
  }
  CHECK(read[1].result.costs == std::vector<double>{2e-3, 2.5e-3});
  CHECK(read[3].result.costs == std::vector<double>{kErrorCost});
}
