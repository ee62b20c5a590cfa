// The pinned timing policy and skip-hopeless with a real measurerd and real workers.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <string>

#include "daemon/server/core_split.h"
#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;
using measure::MeasureErrorNo;
using measure::MeasureResult;

namespace {

/// The cores a process's main thread may run on (/proc/PID/status, Cpus_allowed_list).
std::string cpus_allowed(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Cpus_allowed_list:", 0) == 0) return line.substr(line.find_first_not_of(" \t", 18));
  return "";
}

}  // namespace

TEST_CASE("pinned policy: workers end up on the timing core, the build cores or all, every result ok") {
  std::vector<int> cores = daemon::allowed_cores();
  Daemon d(2, {"--timing-policy", "pinned"});
  client::Client c(d.socket());
  if (cores.size() < 2) {
    // Too few cores: the daemon says exclusive (and logs why).
    CHECK(c.welcome().policy == measure::TimingPolicy::Exclusive);
    return;
  }
  REQUIRE(c.welcome().policy == measure::TimingPolicy::Pinned);
  measure::Task task = matmul_task(32);
  task.hardware.num_cores = 1;
  std::vector<MeasureResult> results;
  auto done = c.measure(task, {"[]", "[[\"SP\", 2, 0, 32, [8], 1]]", "[]", "[[\"SP\", 2, 1, 32, [4], 1]]"},
                        quick_options(), [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
  CHECK(done.errors == 0);
  REQUIRE(results.size() == 4);
  for (const auto& r : results) {
    CHECK(r.error_no == MeasureErrorNo::NoError);
    CHECK(r.policy == measure::TimingPolicy::Pinned);
  }
  auto split = daemon::split_cores(cores, 1);
  REQUIRE(split);
  auto list = [](const std::vector<int>& cs) {  // Cpus_allowed_list's form of a set of cores
    std::string out;
    for (size_t i = 0; i < cs.size();) {
      size_t j = i;
      while (j + 1 < cs.size() && cs[j + 1] == cs[j] + 1) ++j;
      out += (out.empty() ? "" : ",") + std::to_string(cs[i]) + (j > i ? "-" + std::to_string(cs[j]) : "");
      i = j + 1;
    }
    return out;
  };
  std::string timing = list(split->timing), builds = list(split->build), all = list(cores);
  std::set<std::string> seen;
  for (const auto& w : c.status().worker_list) seen.insert(cpus_allowed(w.pid));
  // Each worker was last pinned for a run (the last core), for a build beside a run (the
  // others) or for a build with no run (every core).
  CHECK_FALSE(seen.empty());
  for (const auto& s : seen) {
    INFO("worker cores " << s);
    CHECK((s == timing || s == builds || s == all));
  }
  CHECK(seen.count(timing) == 1);  // the last job of the request was a run
}

TEST_CASE("skip-hopeless through the daemon: the first state is timed in full, a skipped one says so") {
  // Which later states are skipped depends on the machine (a cold call against the first
  // state's mean, factor 1); tests/unit/measure/pipeline_test.cpp forces both outcomes.
  Daemon d(1);
  client::Client c(d.socket());
  auto options = quick_options();
  options.repeat = 3;
  options.skip_hopeless = true;
  options.skip_hopeless_factor = 1;
  std::vector<MeasureResult> results;
  c.measure(matmul_task(96), {"[]", "[]", "[]"}, options,
            [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
  REQUIRE(results.size() == 3);
  CHECK_FALSE(results[0].timing_skipped);
  for (const auto& r : results) {
    CHECK(r.error_no == MeasureErrorNo::NoError);
    CHECK(r.costs.size() == (r.timing_skipped ? 1u : 3u));
    CHECK((r.error_msg.rfind("timing skipped", 0) == 0) == r.timing_skipped);
  }
}
