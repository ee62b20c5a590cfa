#include "common/record/record.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/util/error.h"

using namespace mrd::record;
using mrd::measure::MeasureErrorNo;

TEST_CASE("TVM's own records read, and write back to the same meaning") {
  for (const char* name : {"matmul", "conv2d_nchw", "softmax"}) {
    std::ifstream in(std::string(MEASURERD_TVM_REFERENCE_DIR) + "/" + name + ".records.json");
    REQUIRE(in);
    auto records = read_records(in);
    REQUIRE(records.size() == 13);
    for (const auto& r : records) {
      CHECK(r.target == "llvm -keys=cpu -mcpu=znver3");
      CHECK(r.hardware.num_cores == 1);
      CHECK(r.hardware.cache_line_bytes == 64);
      CHECK(r.layout_rewrite_option == 1);
      CHECK(r.version == "v0.6");
      CHECK(r.result.error_no == MeasureErrorNo::NoError);
      CHECK_FALSE(r.result.costs.empty());
      Record back = from_json_line(to_json_line(r));
      CHECK(back.workload_key == r.workload_key);
      CHECK(nlohmann::json::parse(back.steps) == nlohmann::json::parse(r.steps));
      CHECK(back.result.costs == r.result.costs);
      CHECK(back.result.timestamp == r.result.timestamp);
    }
  }
}

TEST_CASE("a written line has TVM's layout") {
  mrd::measure::Task t;
  t.workload = mrd::registry::FunctionWorkload{
      "matmul", {int64_t(128), int64_t(96), int64_t(64), std::string("float32")}};
  t.target = "llvm -keys=cpu";
  t.hardware.num_cores = 4;
  mrd::measure::MeasureResult res;
  res.costs = {0.5, 0.25};
  res.all_cost = 1.5;
  res.timestamp = 1795964369.7;
  Record r = make_record(t, R"([["SP",2,0,128,[16],1],["AN",2,0,3]])", res);
  CHECK(
      to_json_line(r) ==
      R"({"i": [["[\"matmul\", 128, 96, 64, \"float32\"]", "llvm -keys=cpu", [4, 64, 64, 0, 0, 0, 0, 0], "", 1, []], [[], [["SP", 2, 0, 128, [16], 1], ["AN", 2, 0, 3]]]], "r": [[0.5, 0.25], 0, 1.5, 1795964369], "v": "v0.6"})");
  auto task = task_of(r);
  auto& f = std::get<mrd::registry::FunctionWorkload>(task.workload);
  CHECK(f.name == "matmul");
  REQUIRE(f.args.size() == 4);
  CHECK(std::get<int64_t>(f.args[0]) == 128);
  CHECK(std::get<std::string>(f.args[3]) == "float32");
  CHECK(task.hardware.num_cores == 4);
}

TEST_CASE("a failed measurement is written with TVM's error cost") {
  Record r;
  r.workload_key = R"(["matmul", 1, 1, 1, "float32"])";
  r.result.error_no = MeasureErrorNo::RunTimeout;
  Record back = from_json_line(to_json_line(r));
  CHECK(back.result.error_no == MeasureErrorNo::RunTimeout);
  CHECK(back.result.costs == std::vector<double>{kErrorCost});
}

TEST_CASE("bad record lines are refused with the line number") {
  CHECK_THROWS_AS(from_json_line("not json"), mrd::UserError);
  CHECK_THROWS_AS(from_json_line(R"({"i": [], "r": []})"), mrd::UserError);
  CHECK_THROWS_AS(
      from_json_line(R"({"i": [["k", "t", [1, 64, 64]], [[], []]], "r": [[1.0], 42, 1.0, 0]})"),
      mrd::UserError);
  std::istringstream in("\n" + to_json_line(Record{}) + "\n{broken\n");
  try {
    read_records(in);
    FAIL("read a broken log");
  } catch (const mrd::UserError& e) {
    CHECK(std::string(e.what()).find("line 3") != std::string::npos);
  }
  Record tensor_key;
  tensor_key.workload_key = "not a json key";
  CHECK_THROWS_AS(task_of(tensor_key), mrd::UserError);
}

TEST_CASE("a timestamp no integer holds is refused, never cast") {
  const std::string head =
      R"({"i": [["[\"matmul\", 8, 8, 8, \"float32\"]", "llvm", [1, 64, 64, 0, 0, 0, 0, 0], "", 1, []], [[], []]], "r": [[0.5], 0, 1.5, )";
  CHECK_NOTHROW(from_json_line(head + R"(1795964369], "v": "v0.6"})"));
  for (const char* ts : {"7.7e86", "-1e300", "9007199254740992"}) {
    INFO(ts);
    CHECK_THROWS_WITH(from_json_line(head + ts + R"(], "v": "v0.6"})"),
                      Catch::Contains("timestamp out of range"));
  }
  mrd::measure::Task t;
  t.workload = mrd::registry::FunctionWorkload{"matmul", {int64_t(8), int64_t(8), int64_t(8), std::string("float32")}};
  mrd::measure::MeasureResult res;
  res.costs = {0.5};
  res.timestamp = 1e300;  // set by a program, not read: written as 0
  CHECK(to_json_line(make_record(t, "[]", res)).find(R"(, 0], "v")") != std::string::npos);
}
