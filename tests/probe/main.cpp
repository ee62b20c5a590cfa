// measurerd-probe: a bounded hostile peer against a private measurerd. While one well-behaved
// client measures a small request over and over, the probe runs every hostile case in turn
// (a fuzzer over valid-request mutations, a flood, a client that never reads, descriptor
// exhaustion, slow peers, refused requests). Then, with every hostile peer gone, the same
// client measures as many requests again alone, so that the two phases are compared like with
// like: the same number of requests of the same kind, each a new candidate. It ends with one
// line:
//   probe: cases N daemon_alive yes good_requests G judged worst
//          worst_latency_s W alone_worst_s A ratio R
//          p99_latency_s P alone_p99_s Q p99_ratio S peak_rss_kb K fds B->E seconds T
// (worst and p99 of the G requests under attack and of the G alone; `judged` names the
// statistic whose ratio is judged, --judge). It exits 0 only when the daemon is alive, its
// peak RSS is under 64 MiB, its descriptors are back to where they started and (unless
// --no-latency-judgement) the judged ratio is under 2.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include "client/lib/client.h"
#include "common/util/error.h"
#include "tests/probe/hostile_cases.h"
#include "tests/probe/latencies.h"
#include "tests/soak/soak_daemon.h"

using namespace mrd;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

uint64_t peak_rss_kb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6));
  return 0;
}

/// Seconds one small request takes, end to end. Like a tuner's, each request is new to the
/// daemon (a matmul of another shape each time), so it is built and timed, never a cache hit.
double one_request(client::Client& c, uint64_t serial) {
  int64_t m = 8 + int64_t(serial % 16), n = 8 + int64_t(serial / 16 % 16),
          k = 8 + int64_t(serial / 256 % 16);
  measure::Task t;
  t.workload = registry::FunctionWorkload{"matmul", {m, n, k, std::string("float32")}};
  measure::MeasureOptions o;
  o.number = 1;
  o.repeat = 1;
  o.min_repeat_ms = 0;
  auto start = Clock::now();
  c.measure(t, {"[]", "[]"}, o, nullptr);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"measurerd-probe: hostile local peers against a private measurerd.\n"
               "A well-behaved client measures a small new candidate over and over while the "
               "hostile cases run, then as many requests again alone; the worst and the 99th "
               "percentile (nearest rank) of both phases are printed, and the ratio of the "
               "--judge statistic (under attack / alone) must be under 2."};
  std::string build_dir = MEASURERD_BINARY_DIR;
  size_t fuzz = 1000, flood = 1000000, slow = 20, exhaust = 40, over_cap = 70;
  uint64_t seed = 1;
  std::string judge = "worst";
  bool no_latency = false, keep = false, verbose = false;
  app.add_option("--build", build_dir, "build directory with daemon/measurerd");
  app.add_option("--fuzz", fuzz, "mutated requests")->capture_default_str();
  app.add_option("--flood", flood, "StatusRequests of the flood and of the never-reading client")
      ->capture_default_str();
  app.add_option("--slow", slow, "slow peers of each kind")->capture_default_str();
  app.add_option("--exhaust", exhaust, "connections once descriptors are short")
      ->capture_default_str();
  app.add_option("--over-cap", over_cap, "connections opened at once (past the per-uid cap)")
      ->capture_default_str();
  app.add_option("--seed", seed, "seed of the fuzzer")->capture_default_str();
  app.add_option("--judge", judge,
                 "the statistic whose ratio (under attack / alone, over the same number of "
                 "requests) is judged: worst or p99")
      ->check(CLI::IsMember({"worst", "p99"}))
      ->capture_default_str();
  app.add_flag("--no-latency-judgement", no_latency,
               "print the latency figures but do not judge them (loaded machines, the test "
               "suite)");
  app.add_flag("--keep", keep, "keep the private directory");
  app.add_flag("--verbose", verbose,
               "also print the worst latency during each case and the medians");
  CLI11_PARSE(app, argc, argv);

  std::string tmpl = (fs::temp_directory_path() / "measurerd-probe-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) {
    std::cerr << "probe: cannot make a private directory\n";
    return 2;
  }
  auto started = Clock::now();
  soak::DaemonConfig config;
  config.build_dir = fs::absolute(build_dir).string();
  config.dir = tmpl;
  config.workers = 2;
  config.test_faults = false;
  config.extra_args = {"--hello-timeout", "1", "--idle-timeout", "2"};
  int rc = 0;
  try {
    soak::SoakDaemon daemon(config);
    client::Client good(daemon.socket_path(), "probe-good-client");
    uint64_t serial = 0;
    one_request(good, serial++);  // warms the workers up
    long fds_before = daemon.fd_count();

    std::atomic<bool> stop{false};
    std::atomic<int> current{0};  // which case runs now
    const char* names[] = {"never_reading", "fuzz", "flood", "exhaust_fds", "slowloris",
                           "refusals", "draining"};
    double worst_in[7] = {};
    std::vector<double> attacked;
    std::string good_error;
    std::thread well_behaved([&] {
      try {
        while (!stop) {
          int during = current;
          double t = one_request(good, serial++);
          attacked.push_back(t);
          worst_in[during] = std::max(worst_in[during], t);
        }
      } catch (const std::exception& e) {
        good_error = e.what();
      }
    });

    probe::HostileCases cases(daemon.socket_path(), seed);
    cases.never_reading(flood);
    current = 1;
    cases.fuzz(fuzz);
    current = 2;
    cases.flood(flood);
    current = 3;
    cases.exhaust_fds(daemon.pid(), 10, exhaust);
    current = 4;
    cases.slowloris(slow);
    current = 5;
    cases.refusals(over_cap);
    current = 6;
    cases.release_held();

    // Every hostile connection closed and seen closed: only the good client is left.
    long fds_after = 0;
    {
      client::Client watcher(daemon.socket_path(), "probe-watcher");
      auto deadline = Clock::now() + std::chrono::seconds(30);
      while (watcher.status().clients > 2 && Clock::now() < deadline) {
      }
      stop = true;
      well_behaved.join();
      fds_after = daemon.fd_count() - 1;  // less the watcher's connection
    }
    // The same number of requests of the same kind, alone.
    std::vector<double> alone;
    if (good_error.empty()) {
      try {
        for (size_t i = 0; i < attacked.size(); ++i) alone.push_back(one_request(good, serial++));
      } catch (const std::exception& e) {
        good_error = e.what();
      }
    }
    bool alive = daemon.running();
    uint64_t peak = peak_rss_kb(daemon.pid());
    auto exit = daemon.stop(10);
    alive = alive && !exit.crashed;
    auto under = probe::summarize(attacked), by_itself = probe::summarize(alone);
    double ratio = by_itself.worst > 0 ? under.worst / by_itself.worst : 0;
    double p99_ratio = by_itself.p99 > 0 ? under.p99 / by_itself.p99 : 0;
    double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    std::cout << "probe: cases " << cases.counts().cases << " daemon_alive "
              << (alive ? "yes" : "no") << " good_requests " << under.count << " judged "
              << (no_latency ? "none" : judge) << " worst_latency_s " << under.worst
              << " alone_worst_s " << by_itself.worst << " ratio " << ratio << " p99_latency_s "
              << under.p99 << " alone_p99_s " << by_itself.p99 << " p99_ratio " << p99_ratio
              << " peak_rss_kb " << peak << " fds " << fds_before << "->" << fds_after
              << " seconds " << seconds << "\n";
    if (verbose) {
      std::cout << "probe: worst latency by case:";
      for (int i = 0; i < 7; ++i) std::cout << " " << names[i] << " " << worst_in[i];
      std::cout << "\nprobe: median latency under attack " << under.median << " alone "
                << by_itself.median << "\n";
    }
    if (!good_error.empty()) std::cout << "probe: the well-behaved client failed: " << good_error << "\n";
    if (!alive) std::cout << "probe: measurerd ended: " << exit.how << "\n";
    double judged = judge == "p99" ? p99_ratio : ratio;
    bool ok = alive && good_error.empty() && peak < 64 * 1024 && fds_after == fds_before &&
              (no_latency || (under.count > 0 && judged < 2));
    rc = ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cout << "probe: " << e.what() << "\n";
    rc = 1;
  }
  if (rc == 0 && !keep) {
    std::error_code ec;
    fs::remove_all(tmpl, ec);
  } else {
    std::cout << "probe: private directory kept: " << tmpl << "\n";
  }
  return rc;
}
