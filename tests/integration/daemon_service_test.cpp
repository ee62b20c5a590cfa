// measurerd as a service: its configuration file, the systemd watchdog, priorities on the
// journal's stream, and what it does when its workers cannot start. Each test runs a real
// measurerd with real workers; systemd's side (NOTIFY_SOCKET, JOURNAL_STREAM) is played by
// sockets and files the test owns and reads.
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "tests/integration/daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

/// A measurerd that runs to its end (it cannot start): its exit code and its stderr.
struct Ended {
  int exit_code;
  std::string log;
};

Ended run_to_end(const TempDir& dir, std::vector<std::string> args) {
  auto log = dir.path / "ended.log";
  bp::child c(build_path("daemon/measurerd"), bp::args(args), bp::std_err > log.string(),
              bp::std_out > bp::null);
  c.wait();
  return {c.exit_code(), file_text(log)};
}

std::vector<std::string> base_args(const TempDir& dir) {
  return {"--socket",    (dir.path / "s.sock").string(),
          "--cache-dir", (dir.path / "cache").string(),
          "--workers",   "1"};
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

}  // namespace

TEST_CASE("a worker program that cannot start makes measurerd exit 1 with the reason") {
  TempDir dir;
  auto args = base_args(dir);
  args.insert(args.end(), {"--worker-path", "/bin/false", "--worker-start-attempts", "2"});
  auto e = run_to_end(dir, args);
  CHECK(e.exit_code == 1);
  INFO(e.log);
  CHECK(e.log.find("measurerd could not start: cannot start the workers: /bin/false") !=
        std::string::npos);
  CHECK(e.log.find("exited with status 1 before it was ready (2 starts in a row failed)") !=
        std::string::npos);
  CHECK(count_of(e.log, "retrying in") == 1);  // one retry: two starts in all
  CHECK_FALSE(fs::exists(dir.path / "s.sock"));
}

TEST_CASE("a worker that stops starting once measurerd serves leaves it degraded in status") {
  TempDir bin;
  auto worker = bin.path / "measurerd-worker";
  fs::copy_file(build_path("daemon/measurerd-worker"), worker);
  Daemon d(2, {"--worker-path", worker.string(), "--worker-start-attempts", "2"});
  client::Client c(d.socket());
  CHECK(c.status().degraded.empty());
  // From now on every new worker fails before it is ready.
  auto broken = bin.path / "broken";
  write_file(broken, "#!/bin/sh\nexit 3\n");
  fs::permissions(broken, fs::perms::owner_all);
  fs::rename(broken, worker);
  auto workers = c.status().worker_list;
  REQUIRE(workers.size() == 2);
  REQUIRE(::kill(workers[0].pid, SIGKILL) == 0);
  proto::StatusReply s;
  do s = c.status();
  while (s.degraded.empty());
  CHECK(s.degraded.find("1 of 2 workers could not be started") == 0);
  CHECK(s.degraded.find("exited with status 3 before it was ready") != std::string::npos);
  CHECK(s.workers_alive == 1);
  // The other worker still measures.
  std::vector<measure::MeasureResult> results;
  c.measure(matmul_task(8), {"[]"}, quick_options(),
            [&](uint32_t, const measure::MeasureResult& r) { results.push_back(r); });
  REQUIRE(results.size() == 1);
  CHECK(results[0].error_no == measure::MeasureErrorNo::NoError);
  CHECK(d.log().find("runs degraded with 1 of 2 workers") != std::string::npos);
  // measurer status says so, in text and JSON.
  for (std::string json : {"", "--json"}) {
    std::vector<std::string> args = {"status", "--socket", d.socket()};
    if (!json.empty()) args.push_back(json);
    auto out = bin.path / "status.out";
    bp::child m(build_path("client/measurer"), bp::args(args), bp::std_out > out.string());
    m.wait();
    CHECK(m.exit_code() == 0);
    std::string text = file_text(out);
    CHECK(text.find(json.empty() ? "DEGRADED       1 of 2 workers could not be started"
                                 : "\"degraded\":\"1 of 2 workers could not be started") !=
          std::string::npos);
  }
  CHECK(d.terminate() == 0);
}

TEST_CASE("the configuration file sets options and the command line wins over it") {
  TempDir dir;
  auto conf = dir.path / "measurerd.conf";
  write_file(conf, "# measurerd\nworkers = 3\nmax-body = 4096\ntiming-policy = shared\n");
  Daemon d(1, {"--config", conf.string(), "--timing-policy", "exclusive"});
  client::Client c(d.socket());
  CHECK(c.welcome().workers == 1);      // --workers 1 wins over workers = 3
  CHECK(c.welcome().max_body == 4096);  // from the file only
  CHECK(c.welcome().policy == measure::TimingPolicy::Exclusive);
}

TEST_CASE("a bad configuration file stops measurerd with exit 2, naming the problem") {
  TempDir dir;
  auto conf = dir.path / "measurerd.conf";
  write_file(conf, "workers = 1\nwrokers = 2\n");
  auto args = base_args(dir);
  args.insert(args.end(), {"--config", conf.string()});
  auto e = run_to_end(dir, args);
  CHECK(e.exit_code == 2);
  CHECK(e.log.find("wrokers") != std::string::npos);

  auto missing = base_args(dir);
  missing.insert(missing.end(), {"--config", (dir.path / "none.conf").string()});
  e = run_to_end(dir, missing);
  CHECK(e.exit_code == 2);
  CHECK(e.log.find("none.conf") != std::string::npos);
}

TEST_CASE("under a systemd watchdog, measurerd sends WATCHDOG=1 from its event loop") {
  TempDir dir;
  NotifySocket notify(dir.path);
  auto env = boost::this_process::environment();
  env["NOTIFY_SOCKET"] = notify.path;
  env["WATCHDOG_USEC"] = "200000";
  bp::child c(build_path("daemon/measurerd"), bp::args(base_args(dir)), env,
              bp::std_err > (dir.path / "log").string());
  REQUIRE(notify.wait_for("READY=1"));
  // After READY, beats keep coming while the daemon serves.
  CHECK(notify.wait_for("WATCHDOG=1"));
  CHECK(notify.wait_for("WATCHDOG=1"));
  client::Client client((dir.path / "s.sock").string());
  CHECK(client.status().workers == 1);
  CHECK(notify.wait_for("WATCHDOG=1"));
  ::kill(c.id(), SIGTERM);
  c.wait();
  CHECK(c.exit_code() == 0);
  CHECK(file_text(dir.path / "log").find("systemd watchdog: 200 ms; WATCHDOG=1 every 100 ms") !=
        std::string::npos);
}

TEST_CASE("on the journal's stream every line starts with its syslog priority") {
  TempDir dir;
  auto log = dir.path / "journal";
  write_file(log, "");
  struct stat st;
  REQUIRE(::stat(log.c_str(), &st) == 0);
  NotifySocket notify(dir.path);
  auto env = boost::this_process::environment();
  env["NOTIFY_SOCKET"] = notify.path;
  env["JOURNAL_STREAM"] = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  auto args = base_args(dir);
  args.push_back("--test-faults");  // logs a warning
  bp::child c(build_path("daemon/measurerd"), bp::args(args), env, bp::std_err > log.string());
  REQUIRE(notify.wait_for("READY=1"));
  notify.close();
  ::kill(c.id(), SIGTERM);
  c.wait();
  CHECK(c.exit_code() == 0);
  std::string text = file_text(log);
  INFO(text);
  CHECK(text.find("<4>[warning] --test-faults") != std::string::npos);
  CHECK(text.find("<6>[info] measurerd started") != std::string::npos);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("measurerd-worker:", 0) == 0) continue;  // a worker's own line
    CHECK(line.size() > 3);
    CHECK(line[0] == '<');
    CHECK(line[2] == '>');
  }
}
