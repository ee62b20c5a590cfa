// measurerd-soak: a bounded soak of a real measurerd on its own private socket. Several
// clients submit a seeded mix of good candidates, refused candidates and every fault workload;
// some abandon their request mid-stream; workers are killed under load. At the end it stops
// the daemon and prints one line of figures; lines before it explain each failure.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

#include "client/lib/client.h"
#include "common/util/error.h"
#include "tests/soak/client_runner.h"
#include "tests/soak/leftovers.h"
#include "tests/soak/request_plan.h"
#include "tests/soak/soak_daemon.h"
#include "tests/soak/soak_report.h"
#include "tests/soak/worker_killer.h"

namespace fs = std::filesystem;
using namespace mrd;
using namespace mrd::soak;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  int clients = 4;
  size_t inputs = 1500;
  double max_seconds = 300;
  double drain_seconds = 60;
  uint64_t seed = 1;
  uint64_t kill_every = 25;
  double disconnect_rate = 0.1;
  int workers = 2;
  std::string build_dir = MEASURERD_BINARY_DIR;
  std::string faults = "auto";
  std::string timing_policy = "exclusive";
  uint64_t limit_as_mb = 1024;
  bool keep = false;
  bool verbose = false;
};

/// Whether this build's measurerd has the --test-faults switch.
bool daemon_has_test_faults(const std::string& build_dir) {
  std::string cmd = "'" + build_dir + "/daemon/measurerd' --help 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return false;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out.find("--test-faults") != std::string::npos;
}

std::string make_soak_dir() {
  const char* t = std::getenv("TMPDIR");
  std::string base = t && *t == '/' ? t : "/tmp";
  std::string tmpl = base + "/measurerd-soak-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp in " + base + " failed");
  return tmpl;
}

measure::MeasureOptions quick() {
  measure::MeasureOptions o;
  o.number = 1;
  o.repeat = 1;
  o.min_repeat_ms = 0;
  return o;
}

/// Waits, up to `seconds`, until the daemon has no request, no job and a full idle pool,
/// with only the `control` connection open. Returns what is still not so, empty when idle.
std::string wait_for_idle(client::Client& control, int workers, double seconds) {
  auto give_up = Clock::now() + std::chrono::duration<double>(seconds);
  std::string why;
  for (;;) {
    auto s = control.status();
    size_t idle = 0;
    for (const auto& w : s.worker_list) idle += w.state == proto::WorkerState::Idle;
    if (s.requests == 0 && s.in_flight == 0 && s.queued == 0 && s.clients == 1 &&
        idle == size_t(workers))
      return "";
    why = str_cat("requests ", s.requests, ", in flight ", s.in_flight, ", queued ", s.queued,
                  ", clients ", s.clients, ", idle workers ", idle, "/", workers);
    if (Clock::now() >= give_up) return why;
    // Status requests are paced; the loop ends on the daemon's own state.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

template <class T>
void print_capped(const std::vector<T>& lines, size_t cap, const std::string& prefix) {
  for (size_t i = 0; i < lines.size() && i < cap; ++i) std::cout << prefix << lines[i] << "\n";
  if (lines.size() > cap) std::cout << prefix << "... and " << lines.size() - cap << " more\n";
}

int run(const Options& o) {
  const bool faults =
      o.faults == "on" || (o.faults == "auto" && daemon_has_test_faults(o.build_dir));
  PlanConfig pc;
  pc.inputs = o.inputs;
  pc.seed = o.seed;
  pc.disconnect_rate = o.disconnect_rate;
  pc.faults_enabled = faults;
  const auto plan = plan_requests(pc);
  if (o.verbose) {
    std::map<std::string, size_t> mix;
    for (const auto& r : plan)
      for (size_t i = 0; i < r.states.size(); ++i)
        ++mix[str_cat(r.label.rfind("fault.", 0) == 0 ? r.label : "workload", " -> ",
                      measure::error_name(r.expected[i]))];
    for (const auto& [what, n] : mix) std::cout << "soak: plan " << n << " x " << what << "\n";
  }

  const std::string dir = make_soak_dir();
  DaemonConfig dc;
  dc.build_dir = o.build_dir;
  dc.dir = dir;
  dc.workers = o.workers;
  dc.test_faults = faults;
  dc.limit_as_mb = o.limit_as_mb;
  dc.timing_policy = o.timing_policy;
  const auto started = Clock::now();
  std::unique_ptr<SoakDaemon> daemon;
  try {
    daemon = std::make_unique<SoakDaemon>(dc);
  } catch (const std::exception& e) {
    std::cout << "soak: " << e.what() << "\nsoak: directory kept: " << dir << "\n";
    return 2;
  }

  // Warm-up: one good candidate, so that "before" figures are of a daemon that has served.
  std::unique_ptr<client::Client> control;
  try {
    control = std::make_unique<client::Client>(daemon->socket_path(), "soak-control");
    measure::Task t;
    t.workload = registry::FunctionWorkload{
        "matmul", {int64_t(16), int64_t(16), int64_t(16), std::string("float32")}};
    measure::MeasureResult warm;
    control->measure(t, {"[]"}, quick(),
                     [&](uint32_t, const measure::MeasureResult& r) { warm = r; });
    if (warm.error_no != measure::MeasureErrorNo::NoError)
      throw std::runtime_error(str_cat("warm-up matmul 16 gave ",
                                       measure::error_name(warm.error_no), ": ", warm.error_msg));
  } catch (const std::exception& e) {
    std::cout << "soak: warm-up failed: " << e.what() << "\n"
              << daemon->log_tail(20) << "soak: directory kept: " << dir << "\n";
    return 2;
  }
  const long fds_before = daemon->fd_count();
  const long rss_before = daemon->rss_kb();

  ClientRunner clients(daemon->socket_path(), plan);
  WorkerKiller killer(daemon->socket_path(), clients, o.kill_every, o.seed, dir, daemon->pid());
  const auto submit_deadline = started + std::chrono::duration<double>(o.max_seconds);
  clients.start(o.clients, std::chrono::time_point_cast<Clock::duration>(submit_deadline));
  killer.start();
  const bool drained = clients.wait(std::chrono::time_point_cast<Clock::duration>(
      submit_deadline + std::chrono::duration<double>(o.drain_seconds)));
  if (drained)
    killer.stop();
  else
    killer.abandon();

  std::vector<std::string> notes;
  long fds_after = -1, rss_after = -1;
  if (drained && daemon->running()) {
    try {
      // A run longer than measurerd's idle timeout has seen the control connection closed.
      control = std::make_unique<client::Client>(daemon->socket_path(), "soak-control");
      std::string busy = wait_for_idle(*control, o.workers, 30);
      if (!busy.empty())
        notes.push_back("daemon not idle 30 s after the clients finished: " + busy);
    } catch (const std::exception& e) {
      notes.push_back(str_cat("status after the run failed: ", e.what()));
    }
    fds_after = daemon->fd_count();
    rss_after = daemon->rss_kb();
  }
  control.reset();
  const size_t started_workers = daemon->workers_started();
  const DaemonExit exit = daemon->stop(30);
  const auto strays = stray_processes(dir, 3.0);
  kill_strays(strays);
  const auto temp_files = temp_files_left(daemon->tmp_dir(), daemon->cache_dir());
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();

  SoakFigures f;
  f.tally = clients.tally();
  f.kills = killer.kills();
  reconcile_kills(f.tally, f.kills);
  const Tally& t = f.tally;
  if (t.submitted != t.received + t.cut + t.lost)
    notes.push_back(str_cat("accounting: submitted ", t.submitted, " != results ", t.received,
                            " + cut ", t.cut, " + lost ", t.lost));
  if (drained && !killer.error().empty())
    notes.push_back("worker killer stopped: " + killer.error());
  if (!drained)
    notes.push_back(
        str_cat("clients still waiting ", o.drain_seconds, " s after the submission deadline"));
  f.daemon_crashed = exit.crashed;
  f.drained = drained;
  f.worker_restarts = static_cast<long long>(started_workers) - o.workers;
  f.stray_processes = strays.size();
  if (drained) f.orphans_seen = killer.orphans().size();
  f.temp_files_left = temp_files.size();
  f.fds_before = fds_before;
  f.fds_after = fds_after;
  f.rss_kb_before = rss_before;
  f.rss_kb_after = rss_after;
  f.faults = faults;
  f.seconds = seconds;

  const bool ok = soak_passed(f);
  if (!ok) {
    print_capped(t.problems, 50, "soak: ");
    if (exit.crashed) {
      std::cout << "soak: daemon " << exit.how << "; log tail:\n" << daemon->log_tail(30);
    }
    std::vector<std::string> stray_lines;
    for (const auto& s : strays) stray_lines.push_back(str_cat("pid ", s.pid, ": ", s.cmdline));
    print_capped(stray_lines, 20, "soak: stray process ");
    if (drained) print_capped(killer.orphans(), 20, "soak: orphan ");
    print_capped(temp_files, 20, "soak: temp file left ");
    std::cout << "soak: directory kept: " << dir << "\n";
  }
  if (o.verbose) print_capped(t.killed_details, 1000, "soak: killed: ");
  if (o.verbose && ok) print_capped(killer.orphans(), 1000, "soak: orphan ");
  print_capped(notes, 20, "soak: note: ");
  std::cout << figures_line(f) << "\n";
  std::fflush(stdout);
  daemon.reset();
  if (ok && !o.keep) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  } else if (ok) {
    std::cout << "soak: directory kept: " << dir << "\n";
  }
  if (!drained) ::_exit(1);  // client threads are still blocked on the dead connection
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "measurerd-soak: starts a real measurerd (with --test-faults when it has the switch) in a "
      "private temporary directory and runs a bounded soak against it: concurrent clients submit "
      "good candidates, refused candidates and every fault workload; some clients disconnect "
      "mid-request; workers are killed under load. Prints one line of figures at the end, "
      "preceded by an explanation of each failure.\n"
      "Exit codes: 0 no result lost, no wrong code, no daemon crash, no stray process, no temp "
      "file left; 1 any of those; 2 the soak could not start."};
  app.option_defaults()->always_capture_default();
  app.add_option("--clients", o.clients, "concurrent client connections")->check(CLI::Range(1, 64));
  app.add_option("--inputs", o.inputs, "inputs (candidates) to submit in all")
      ->check(CLI::Range(size_t(1), size_t(100000)));
  app.add_option("--max-seconds", o.max_seconds,
                 "no request starts after this many seconds; requests under way are read to "
                 "their end, unsent inputs are reported")
      ->check(CLI::PositiveNumber);
  app.add_option("--drain-seconds", o.drain_seconds,
                 "after the --max-seconds bound, how long the clients may still wait for results "
                 "before the ones missing count as lost")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "seed of the request mix, the disconnects and the kills");
  app.add_option("--kill-every", o.kill_every,
                 "SIGKILL a busy worker each time this many more results have arrived (0: never)");
  app.add_option("--disconnect-rate", o.disconnect_rate,
                 "fraction of requests whose client disconnects before their last result")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--workers", o.workers, "worker processes of the daemon")
      ->check(CLI::Range(1, 64));
  app.add_option("--build", o.build_dir, "build directory holding daemon/measurerd");
  app.add_option("--faults", o.faults,
                 "on: start the daemon with --test-faults, fault workloads must fault; off: "
                 "without it, fault workloads must be refused with INSTANTIATION_ERROR; auto: on "
                 "when this measurerd has the switch")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("--timing-policy", o.timing_policy, "the daemon's timing policy")
      ->check(CLI::IsMember({"exclusive", "pinned", "shared"}));
  app.add_option("--limit-as-mb", o.limit_as_mb,
                 "address-space limit of each worker in MiB (what stops fault.runaway_alloc)");
  app.add_flag("--verbose", o.verbose,
               "also print the planned mix of inputs and each result blamed on a kill");
  app.add_flag("--keep", o.keep, "keep the private directory (log, cache) after a passing run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  o.build_dir = fs::absolute(o.build_dir).string();  // the daemon runs in another directory
  if (::access((o.build_dir + "/daemon/measurerd").c_str(), X_OK) != 0) {
    std::cout << "soak: no measurerd in " << o.build_dir << "/daemon (use --build)\n";
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cout << "soak: " << e.what() << "\n";
    return 2;
  }
}
