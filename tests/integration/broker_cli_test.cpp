// measurer --broker and measurerd --broker against a real redis-server that requires an ACL
// login: the password from a file (node) and from the URL (measurer), status, submit, and a
// refused login.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "redis_fixture.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

/// Only the user `measurer` may log in, and only to the mrd:* keys.
std::vector<std::string> acl() {
  return {"--user", "default", "off", "--user", "measurer", "on", ">s3cret", "~mrd:*", "+@all"};
}

}  // namespace

TEST_CASE("broker with an ACL user: node from a password file, measurer from the URL") {
  RedisServer redis(acl());
  TempDir dir;
  auto pw = dir.path / "broker.pw";
  std::ofstream(pw) << "measurer s3cret\n";
  auto node = std::make_unique<Daemon>(
      1, std::vector<std::string>{"--broker", redis.url(), "--broker-password-file", pw.string(),
                                  "--device-key", "cli-key", "--node-name", "cli-node",
                                  "--timing-policy", "shared"});
  std::string url = "unix://measurer:s3cret@" + redis.socket_path();

  auto status = run_measurer({"--broker", url, "status", "--json"}, dir.path);
  REQUIRE(status.code == 0);
  REQUIRE(status.lines.size() == 1);
  auto j = nlohmann::json::parse(status.lines[0]);
  CHECK(j["broker"] == "unix://measurer@" + redis.socket_path());  // no password
  REQUIRE(j["device_keys"].size() == 1);
  CHECK(j["device_keys"][0]["device_key"] == "cli-key");
  REQUIRE(j["device_keys"][0]["nodes"].size() == 1);
  CHECK(j["device_keys"][0]["nodes"][0]["name"] == "cli-node");
  CHECK(j["device_keys"][0]["nodes"][0]["alive"] == true);
  CHECK(j["device_keys"][0]["nodes"][0]["workers"] == 1);

  auto task = dir.path / "task.json";
  std::ofstream(task) << R"({"workload": {"function": "matmul", "args": [16, 16, 16, "float32"]},
    "options": {"number": 1, "repeat": 1, "min_repeat_ms": 0},
    "states": [[], [["SP", 2, 0, 16, [4], 1]], [["SP", 2, 0, 16, [2], 1]]]})";
  auto sub = run_measurer(
      {"submit", task.string(), "--json", "--broker", url, "--device-key", "cli-key"}, dir.path);
  CHECK(sub.code == 0);
  REQUIRE(sub.lines.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    auto r = nlohmann::json::parse(sub.lines[i]);
    CHECK(r["index"] == i);
    CHECK(r["error"] == "NO_ERROR");
    CHECK(r["node"] == "cli-node");
    CHECK(r["timing_policy"] == "shared");
  }

  // A device key no node serves is refused at once, not queued forever.
  auto none = run_measurer(
      {"submit", task.string(), "--broker", url, "--device-key", "nobody"}, dir.path);
  CHECK(none.code == 3);
  CHECK(none.err.find("no live node serves device key nobody") != std::string::npos);

  auto refused = run_measurer(
      {"--broker", "unix://measurer:wrong@" + redis.socket_path(), "status"}, dir.path);
  CHECK(refused.code == 3);
  CHECK(refused.err.find("login refused") != std::string::npos);
  CHECK(refused.err.find("wrong") == std::string::npos);  // the password is not repeated
}
