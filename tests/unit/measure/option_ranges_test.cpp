// The option ranges: one table, and the task-file parser, the protocol check and the docs
// agreeing with it.
#include "common/measure/option_ranges.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "common/measure/task_file.h"

using namespace mrd;
using namespace mrd::measure;

namespace {

std::string doc(const std::string& name) {
  std::ifstream in(std::string(MEASURERD_SOURCE_DIR) + "/proto-docs/" + name);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string line_starting(const std::string& text, const std::string& prefix) {
  auto at = text.find("\n" + prefix);
  REQUIRE(at != std::string::npos);
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

std::string task_file_with(std::string_view option, const std::string& value) {
  return R"({"workload": {"function": "matmul", "args": [8, 8, 8, "float32"]}, "options": {")" +
         std::string(option) + "\": " + value + R"(}, "states": [[]]})";
}

std::string json_number(const OptionRange& r, double v) {
  return r.integer ? std::to_string(int64_t(v)) : std::to_string(v);
}

void set(MeasureOptions& o, std::string_view name, double v) {
  if (name == "number") o.number = int(v);
  if (name == "repeat") o.repeat = int(v);
  if (name == "min_repeat_ms") o.min_repeat_ms = int(v);
  if (name == "cooldown_interval") o.cooldown_interval = v;
  if (name == "build_timeout") o.build_timeout = v;
  if (name == "run_timeout") o.run_timeout = v;
  if (name == "skip_hopeless_factor") o.skip_hopeless_factor = v;
}

}  // namespace

TEST_CASE("option ranges: the task-file parser and the request check take exactly the table") {
  for (const auto& r : kOptionRanges) {
    INFO(r.name);
    double below = r.min_open ? r.min : r.min - 1;
    double above = r.integer ? r.max + 1 : r.max * 1.5;
    double edge = r.min_open ? r.max : r.min;
    for (double v : {edge, r.max}) {
      MeasureOptions o;
      set(o, r.name, v);
      CHECK(check_option_ranges(o).empty());
      CHECK_NOTHROW(parse_task_file(task_file_with(r.name, json_number(r, v))));
    }
    for (double v : {below, above}) {
      MeasureOptions o;
      set(o, r.name, v);
      CHECK(check_option_ranges(o) == std::string(r.name) + " must be in " + range_text(r));
      CHECK_THROWS_WITH(parse_task_file(task_file_with(r.name, json_number(r, v))),
                        Catch::Contains("must be in " + range_text(r)));
    }
  }
}

TEST_CASE("option ranges: task-format.md and limits.md give the table's ranges") {
  std::string task_format = doc("task-format.md");
  std::string limits = doc("limits.md");
  std::string limits_row = line_starting(limits, "| MeasureOptions");
  for (const auto& r : kOptionRanges) {
    INFO(r.name);
    std::string row = line_starting(task_format, "| `" + std::string(r.name) + "` |");
    CHECK(row.find("| " + range_text(r) + " |") != std::string::npos);
    CHECK(limits_row.find(std::string(r.name) + " " + range_text(r)) != std::string::npos);
  }
  CHECK(range_text(option_range("number")) == "[1, 1000000]");
  CHECK(range_text(option_range("run_timeout")) == "(0, 3600] s");
}
