// measurerd-probe: a bounded hostile peer against a private measurerd. While one well-behaved
// client measures a small request over and over, the probe runs every hostile case in turn
// (a fuzzer over valid-request mutations, a flood, a client that never reads, descriptor
// exhaustion, slow peers, refused requests). It ends with one line:
//   probe: cases N daemon_alive yes worst_latency_s W alone_latency_s A ratio R
//          peak_rss_kb P fds B->E seconds S
// and exits 0 only when the daemon is alive, its peak RSS is under 64 MiB, its descriptors
// are back to where they started and (unless --no-latency-judgement) the well-behaved
// client's worst latency is under twice its worst latency alone.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "client/lib/client.h"
#include "common/util/error.h"
#include "tests/probe/hostile_cases.h"
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
  CLI::App app{"measurerd-probe: hostile local peers against a private measurerd"};
  std::string build_dir = MEASURERD_BINARY_DIR;
  size_t fuzz = 1000, flood = 1000000, slow = 20, exhaust = 40, over_cap = 70;
  uint64_t seed = 1;
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
  app.add_flag("--no-latency-judgement", no_latency,
               "print the latency figures but do not judge them (loaded machines, the test "
               "suite)");
  app.add_flag("--keep", keep, "keep the private directory");
  app.add_flag("--verbose", verbose, "also print the worst latency during each case");
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
    double alone = 0;
    for (int i = 0; i < 10; ++i) alone = std::max(alone, one_request(good, serial++));
    long fds_before = daemon.fd_count();

    std::atomic<bool> stop{false};
    std::atomic<int> current{0};  // which case runs now
    const char* names[] = {"never_reading", "fuzz", "flood", "exhaust_fds", "slowloris",
                           "refusals", "draining"};
    double worst_in[7] = {};
    double worst = 0;
    size_t good_requests = 0;
    std::string good_error;
    std::thread well_behaved([&] {
      try {
        while (!stop) {
          int during = current;
          double t = one_request(good, serial++);
          worst = std::max(worst, t);
          worst_in[during] = std::max(worst_in[during], t);
          ++good_requests;
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
    client::Client watcher(daemon.socket_path(), "probe-watcher");
    auto deadline = Clock::now() + std::chrono::seconds(30);
    while (watcher.status().clients > 2 && Clock::now() < deadline) {
    }
    stop = true;
    well_behaved.join();
    long fds_after = daemon.fd_count() - 1;  // less the watcher's connection
    bool alive = daemon.running();
    uint64_t peak = peak_rss_kb(daemon.pid());
    auto exit = daemon.stop(10);
    alive = alive && !exit.crashed;
    double ratio = alone > 0 ? worst / alone : 0;
    double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    std::cout << "probe: cases " << cases.counts().cases << " daemon_alive "
              << (alive ? "yes" : "no") << " worst_latency_s " << worst << " alone_latency_s "
              << alone << " ratio " << ratio << " good_requests " << good_requests
              << " peak_rss_kb " << peak << " fds " << fds_before << "->" << fds_after
              << " seconds " << seconds << "\n";
    if (verbose) {
      std::cout << "probe: worst latency by case:";
      for (int i = 0; i < 7; ++i) std::cout << " " << names[i] << " " << worst_in[i];
      std::cout << "\n";
    }
    if (!good_error.empty()) std::cout << "probe: the well-behaved client failed: " << good_error << "\n";
    if (!alive) std::cout << "probe: measurerd ended: " << exit.how << "\n";
    bool ok = alive && good_error.empty() && peak < 64 * 1024 && fds_after == fds_before &&
              (no_latency || ratio < 2);
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
