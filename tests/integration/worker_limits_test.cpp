// The resource limits measurerd gives its workers are really in force: read back from
// /proc/<worker pid>/limits of live workers. A runaway allocation under the address-space
// limit is an error result for its input only; the daemon (same pid) keeps serving.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "daemon/worker/sanitizer_build.h"
#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;
using measure::MeasureErrorNo;
using measure::MeasureResult;

namespace {

struct Limit {
  std::string soft, hard;
};

/// /proc/<pid>/limits by name ("Max address space" -> {soft, hard}).
std::map<std::string, Limit> read_limits(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  std::map<std::string, Limit> out;
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    // The name column is 26 characters wide; soft, hard and unit follow.
    if (line.size() < 26) continue;
    std::string name = line.substr(0, 26);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    std::istringstream rest(line.substr(26));
    Limit l;
    rest >> l.soft >> l.hard;
    out[name] = l;
  }
  return out;
}

measure::MeasureOptions short_timeouts() {
  auto o = quick_options();
  o.build_timeout = 5;
  o.run_timeout = 5;
  return o;
}

std::vector<MeasureResult> measure_all(client::Client& c, const measure::Task& task,
                                       size_t inputs) {
  std::vector<MeasureResult> results;
  c.measure(task, std::vector<std::string>(inputs, "[]"), short_timeouts(),
            [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
  return results;
}

}  // namespace

TEST_CASE("the daemon's worker limits are in force in every worker") {
  Daemon d(2,
           {"--limit-as-mb", "1536", "--limit-cpu-seconds", "1000", "--limit-open-files", "200"});
  client::Client c(d.socket());
  auto workers = c.status().worker_list;
  REQUIRE(workers.size() == 2);
  for (const auto& w : workers) {
    INFO("worker " << w.pid);
    auto limits = read_limits(w.pid);
    REQUIRE(limits.count("Max address space"));
    if (worker::kSanitizerBuild) {
      // ASan cannot run under RLIMIT_AS: a sanitizer build leaves it as inherited.
      CHECK(limits["Max address space"].soft != std::to_string(1536ull << 20));
    } else {
      CHECK(limits["Max address space"].soft == std::to_string(1536ull << 20));
      CHECK(limits["Max address space"].hard == std::to_string(1536ull << 20));
    }
    CHECK(limits["Max cpu time"].soft == "1000");
    CHECK(limits["Max cpu time"].hard == "1000");
    CHECK(limits["Max open files"].soft == "200");
    CHECK(limits["Max open files"].hard == "200");
    CHECK(limits["Max core file size"].soft == "0");
    CHECK(limits["Max core file size"].hard == "0");
  }
  if (worker::kSanitizerBuild)
    CHECK(d.log().find("without an address-space limit") != std::string::npos);
  // The limited workers still measure.
  auto results = measure_all(c, matmul_task(16), 2);
  REQUIRE(results.size() == 2);
  for (const auto& r : results) CHECK(r.error_no == MeasureErrorNo::NoError);
}

TEST_CASE("a runaway allocation is an error result, the daemon stays up and serves") {
  Daemon d(1, {"--test-faults", "--limit-as-mb", "768"});
  const pid_t daemon_pid = d.pid();
  client::Client c(d.socket());
  auto results = measure_all(c, function_task("fault.runaway_alloc", {}), 2);
  REQUIRE(results.size() == 2);
  for (const auto& r : results) {
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::RuntimeDevice);
    if (worker::kSanitizerBuild) {
      // Only a sanitizer build (no RLIMIT_AS) may refuse instead of allocating.
      CHECK(r.error_msg.find("no address-space limit") != std::string::npos);
    } else {
      CHECK(r.error_msg.find("out of memory") != std::string::npos);
      CHECK(r.error_msg.find("limit 768 MiB") != std::string::npos);
    }
  }
  CHECK(process_exists(daemon_pid));
  client::Client fresh(d.socket());  // a new connection is still answered
  auto s = fresh.status();
  CHECK(s.workers_alive == 1);
  auto after = measure_all(c, matmul_task(16), 1);
  REQUIRE(after.size() == 1);
  CHECK(after[0].error_no == MeasureErrorNo::NoError);
}
