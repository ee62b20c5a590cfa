// Tasks as bytes and task files as JSON.
#include <catch2/catch.hpp>

#include <fstream>

#include "common/measure/task.h"
#include "common/measure/task_file.h"
#include "common/serialize/decode_error.h"
#include "common/util/error.h"
#include "tests/support/temp_dir.h"

using namespace mrd;
using namespace mrd::measure;

namespace {

Task matmul_task() {
  Task t;
  t.workload = registry::FunctionWorkload{"matmul", {int64_t(64), int64_t(64), int64_t(64), std::string("float32")}};
  t.target = "llvm -keys=cpu -mcpu=znver3";
  t.hardware = {4, 32, 128};
  return t;
}

std::string error_of(const std::string& text) {
  try {
    parse_task_file(text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("task: binary round trip") {
  Task t = matmul_task();
  std::string bytes = task_to_binary(t);
  Task back = task_from_binary(bytes);
  CHECK(back.target == t.target);
  CHECK(back.hardware.num_cores == 4);
  CHECK(back.hardware.vector_unit_bytes == 32);
  CHECK(back.hardware.cache_line_bytes == 128);
  const auto* f = std::get_if<registry::FunctionWorkload>(&back.workload);
  REQUIRE(f != nullptr);
  CHECK(f->name == "matmul");
  CHECK(f->args.size() == 4);
  CHECK(task_to_binary(back) == bytes);
}

TEST_CASE("task: bad bytes are refused with typed errors") {
  std::string bytes = task_to_binary(matmul_task());
  auto code_of = [](std::string_view b) {
    try {
      task_from_binary(b);
    } catch (const serialize::DecodeError& e) {
      return e.code();
    }
    FAIL("no error");
    return serialize::DecodeErrc::Malformed;
  };
  CHECK(code_of("XXXX") == serialize::DecodeErrc::BadMagic);
  std::string v = bytes;
  v[4] = 9;
  CHECK(code_of(v) == serialize::DecodeErrc::BadVersion);
  for (size_t n : {size_t(5), size_t(10), bytes.size() - 1}) {
    CHECK(code_of(std::string_view(bytes).substr(0, n)) == serialize::DecodeErrc::Truncated);
  }
  CHECK(code_of(bytes + "x") == serialize::DecodeErrc::Malformed);
  std::string huge_target = bytes;
  huge_target[5] = huge_target[6] = huge_target[7] = char(0xff);  // target length ~ 2^32
  CHECK(code_of(huge_target) == serialize::DecodeErrc::TooLarge);
  serialize::Limits small;
  small.max_input_bytes = 8;
  CHECK_THROWS_AS(task_from_binary(bytes, small), serialize::DecodeError);
}

TEST_CASE("task file: a complete file") {
  TaskFile tf = parse_task_file(R"({
    "workload": {"function": "matmul", "args": [512, 512, 512, "float32"]},
    "target": "llvm -keys=cpu",
    "hardware": {"num_cores": 1},
    "options": {"number": 5, "repeat": 2, "min_repeat_ms": 0, "cooldown_interval": 0.5,
                "enable_cpu_cache_flush": true, "build_timeout": 20, "run_timeout": 3,
                "check_correctness": true},
    "states": [[], [["SP", 2, 0, 512, [16, 2, 2], 1], ["AN", 2, 0, 3]], [[], [["CI", 1]]]]
  })");
  CHECK(tf.options.number == 5);
  CHECK(tf.options.repeat == 2);
  CHECK(tf.options.min_repeat_ms == 0);
  CHECK(tf.options.cooldown_interval == 0.5);
  CHECK(tf.options.enable_cpu_cache_flush);
  CHECK(tf.options.build_timeout == 20);
  CHECK(tf.options.run_timeout == 3);
  CHECK(tf.options.check_correctness);
  CHECK_FALSE(tf.options.corrupt_output_for_test);
  CHECK(tf.task.hardware.num_cores == 1);
  REQUIRE(tf.states.size() == 3);
  CHECK(tf.states[0] == "[]");
  CHECK(tf.states[1] == R"([["SP",2,0,512,[16,2,2],1],["AN",2,0,3]])");
  CHECK(tf.states[2] == R"([["CI",1]])");  // TVM's record form [[], steps]
}

TEST_CASE("task file: mistakes are named") {
  std::string w = R"("workload": {"function": "matmul", "args": [8, 8, 8, "float32"]})";
  CHECK(error_of("{").find("not valid JSON") != std::string::npos);
  CHECK(error_of("{" + w + "}").find("missing \"states\"") != std::string::npos);
  CHECK(error_of(R"({"states": []})").find("missing \"workload\"") != std::string::npos);
  CHECK(error_of("{" + w + R"(, "states": [], "optoins": {}})").find("unknown field \"optoins\"") !=
        std::string::npos);
  CHECK(error_of("{" + w + R"(, "states": [], "options": {"numbr": 3}})").find("unknown field \"numbr\"") !=
        std::string::npos);
  CHECK(error_of("{" + w + R"(, "states": [], "options": {"number": 0}})").find("options.number") !=
        std::string::npos);
  CHECK(error_of("{" + w + R"(, "states": [], "options": {"number": "3"}})").find("must be an integer") !=
        std::string::npos);
  CHECK(error_of("{" + w + R"(, "states": [], "options": {"check_correctness": 1}})").find("true or false") !=
        std::string::npos);
  CHECK(error_of("{" + w + R"(, "states": [], "options": {"corrupt_output_for_test": true}})")
            .find("unknown field") != std::string::npos);
  CHECK(error_of("{" + w + R"(, "states": [5]})").find("states[0]") != std::string::npos);
  CHECK(error_of("{" + w + R"(, "states": [[[1, 2]]]})").find("states[0][0]") != std::string::npos);
  CHECK(error_of(R"({"workload": {"function": 5}, "states": []})").find("workload") != std::string::npos);
}

TEST_CASE("task file: read whole, with a missing file and the size limit named") {
  const mrd::testing::TempDir dir("mrd-task-file-test");
  std::string small = dir.file("small.json");
  std::string text(3 * (1 << 16) + 17, 'x');  // more than one read chunk, not a multiple of it
  std::ofstream(small) << text;
  CHECK(read_task_file_text(small) == text);
  CHECK_THROWS_WITH(read_task_file_text(dir.file("missing.json")),
                    Catch::Contains("cannot open task file " + dir.file("missing.json")));
  std::string big = dir.file("big.json");
  std::ofstream(big) << std::string(kMaxTaskFileBytes + 1, ' ');
  CHECK_THROWS_WITH(read_task_file_text(big), Catch::Contains("is larger than 67108864 bytes"));
}

TEST_CASE("task: layout_rewrite_option is one of TVM's 0, 1 and 2, in bytes and in task files") {
  Task t = matmul_task();
  for (int option : {0, 1, 2}) {
    t.layout_rewrite_option = option;
    CHECK(task_from_binary(task_to_binary(t)).layout_rewrite_option == option);
  }
  // Its byte follows the magic, the version, the target and the three hardware parameters.
  std::string bytes = task_to_binary(t);
  size_t at = 4 + 1 + 4 + t.target.size() + 3 * 4;
  REQUIRE(bytes[at] == 2);
  bytes[at] = 3;
  CHECK_THROWS_AS(task_from_binary(bytes), serialize::DecodeError);
  std::string w = R"("workload": {"function": "matmul", "args": [8, 8, 8, "float32"]}, "states": [])";
  CHECK(parse_task_file("{" + w + R"(, "layout_rewrite_option": 2})").task.layout_rewrite_option == 2);
  CHECK(error_of("{" + w + R"(, "layout_rewrite_option": 3})").find("layout_rewrite_option") != std::string::npos);
}
