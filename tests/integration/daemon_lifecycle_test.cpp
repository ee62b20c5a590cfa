// Starting and stopping a real daemon: socket activation through systemd-socket-activate,
// SIGTERM with work in flight (clients told, no worker left behind), the socket file mode.
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;

TEST_CASE("SIGTERM with work in flight tells the client and leaves no worker behind") {
  Daemon d(2);
  struct stat st;
  REQUIRE(::stat(d.socket().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0660);

  auto options = quick_options();
  options.min_repeat_ms = 2000;
  int code = -1;
  std::string what;
  std::atomic<bool> finished{false};
  std::thread submitter([&] {
    try {
      client::Client c(d.socket());
      c.measure(matmul_task(64), {"[]", "[]", "[]", "[]"}, options, nullptr);
    } catch (const client::ServerError& e) {
      code = int(e.code());
      what = e.what();
    } catch (const std::exception& e) {
      what = e.what();
    }
    finished = true;
  });
  client::Client watcher(d.socket());
  std::vector<int32_t> pids;
  for (bool busy = false; !busy && !finished;) {
    pids.clear();
    for (const auto& w : watcher.status().worker_list) {
      pids.push_back(w.pid);
      busy = busy || w.state == proto::WorkerState::Running;
    }
  }
  REQUIRE(pids.size() == 2);
  CHECK(d.terminate() == 0);
  submitter.join();
  CHECK(code == int(proto::ErrorCode::ShuttingDown));
  INFO(what);
  for (int32_t pid : pids) CHECK_FALSE(process_exists(pid));
  CHECK_FALSE(std::filesystem::exists(d.socket()));
}

TEST_CASE("socket activation: measurerd takes its socket from systemd-socket-activate") {
  const char* activate = "/usr/bin/systemd-socket-activate";
  if (!std::filesystem::exists(activate)) {
    WARN("systemd-socket-activate not installed");
    return;
  }
  TempDir dir;
  std::string sock = (dir.path / "activated.sock").string();
  std::string log = (dir.path / "measurerd.log").string();
  bp::child daemon(
      activate,
      bp::args(std::vector<std::string>{"-l", sock, build_path("daemon/measurerd"), "--workers",
                                        "1", "--cache-dir", (dir.path / "cache").string()}),
      bp::std_err > log);
  // systemd-socket-activate binds first, then starts measurerd at the first connection; the
  // Hello is answered once measurerd runs on the inherited socket.
  std::unique_ptr<client::Client> c;
  while (!c) {
    try {
      c = std::make_unique<client::Client>(sock);
    } catch (const client::ConnectionError&) {
      if (!daemon.running()) FAIL("systemd-socket-activate ended");  // else: not bound yet
    }
  }
  CHECK(c->welcome().workers == 1);
  int ok = 0;
  c->measure(matmul_task(16), {"[]"}, quick_options(),
             [&](uint32_t, const measure::MeasureResult& r) {
               ok += r.error_no == measure::MeasureErrorNo::NoError;
             });
  CHECK(ok == 1);
  ::kill(daemon.id(), SIGTERM);
  daemon.wait();
  CHECK(daemon.exit_code() == 0);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text.find("socket from systemd") != std::string::npos);
}

TEST_CASE("workers are exec'ed measurerd-worker processes with their resource limits") {
  Daemon d(1, {"--limit-as-mb", "8192", "--limit-open-files", "200"});
  client::Client c(d.socket());
  auto s = c.status();
  REQUIRE(s.worker_list.size() == 1);
  std::string proc = "/proc/" + std::to_string(s.worker_list[0].pid);
  CHECK(std::filesystem::read_symlink(proc + "/exe").filename() == "measurerd-worker");
  std::ifstream in(proc + "/limits");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto limit_line = [&](const std::string& name) {
    auto at = text.find(name);
    REQUIRE(at != std::string::npos);
    return text.substr(at, text.find('\n', at) - at);
  };
  CHECK(limit_line("Max core file size").find(" 0 ") != std::string::npos);
#ifndef MEASURERD_SANITIZED  // AddressSanitizer's shadow memory cannot live under RLIMIT_AS
  CHECK(limit_line("Max address space").find(std::to_string(8192ull << 20)) != std::string::npos);
#endif
  CHECK(limit_line("Max open files").find("200") != std::string::npos);
  CHECK(limit_line("Max cpu time").find("3600") != std::string::npos);
}

TEST_CASE("SIGHUP reopens the log file") {
  TempDir logs;
  std::string log = (logs.path / "measurerd.log").string();
  Daemon d(1, {"--log-file", log});
  std::filesystem::rename(log, log + ".1");
  REQUIRE(::kill(d.pid(), SIGHUP) == 0);
  // The reopened file is written as soon as the daemon handles the signal.
  while (!std::filesystem::exists(log))
    if (!process_exists(d.pid())) FAIL("measurerd ended");
  client::Client c(d.socket());  // still serving
  CHECK(c.status().workers == 1);
}

TEST_CASE("SIGHUP with a log file that cannot be reopened keeps the old one and says so") {
  TempDir logs;
  std::string log = (logs.path / "measurerd.log").string();
  Daemon d(1, {"--log-file", log});
  std::filesystem::rename(log, log + ".1");
  std::filesystem::create_directory(log);  // opening it for appending fails, even for root
  REQUIRE(::kill(d.pid(), SIGHUP) == 0);
  // The warning goes to the file the daemon had open, now named log.1.
  while (file_text(log + ".1").find("cannot reopen log file") == std::string::npos)
    if (!process_running(d.pid())) FAIL("measurerd ended on SIGHUP");
  client::Client c(d.socket());  // still serving
  CHECK(c.status().workers == 1);
  // Once the path can be opened again, the next SIGHUP reopens it.
  std::filesystem::remove(log);
  REQUIRE(::kill(d.pid(), SIGHUP) == 0);
  while (file_text(log).find("log file reopened") == std::string::npos)
    if (!process_running(d.pid())) FAIL("measurerd ended on SIGHUP");
  CHECK(d.terminate() == 0);
}

TEST_CASE("a daemon stopping removes only the socket file it bound") {
  Daemon first(1);
  std::string path = first.socket();
  // Someone removes the first daemon's socket file; a second daemon binds the same path.
  REQUIRE(std::filesystem::remove(path));
  Daemon second(1, {}, path);
  CHECK(first.terminate() == 0);
  REQUIRE(std::filesystem::exists(path));
  client::Client c(path);  // the second daemon is still reachable
  CHECK(c.status().workers == 1);
  CHECK(first.log().find("not removing") != std::string::npos);
  CHECK(second.terminate() == 0);
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("with no worker able to start, a request fails after a bounded wait") {
  TempDir bin;
  auto worker = bin.path / "measurerd-worker";
  std::filesystem::copy_file(build_path("daemon/measurerd-worker"), worker);
  Daemon d(1, {"--worker-path", worker.string(), "--no-worker-timeout", "0.5"});
  // From now on every new worker fails before it is ready, as with an unwritable cache.
  auto broken = bin.path / "broken";
  {
    std::ofstream out(broken);
    out << "#!/bin/sh\nexit 1\n";
  }
  std::filesystem::permissions(broken, std::filesystem::perms::owner_all);
  std::filesystem::rename(broken, worker);
  client::Client c(d.socket());
  auto workers = c.status().worker_list;
  REQUIRE(workers.size() == 1);
  REQUIRE(::kill(workers[0].pid, SIGKILL) == 0);
  // Until the daemon has seen the death, the worker still counts as idle.
  for (bool running = true; running;) {
    running = false;
    for (const auto& w : c.status().worker_list)
      running = running || w.state != proto::WorkerState::Starting;
  }
  std::vector<measure::MeasureResult> results;
  c.measure(matmul_task(16), {"[]", "[]"}, quick_options(),
            [&](uint32_t, const measure::MeasureResult& r) { results.push_back(r); });
  REQUIRE(results.size() == 2);
  for (const auto& r : results) {
    CHECK(r.error_no == measure::MeasureErrorNo::UnknownError);
    CHECK(r.error_msg.find("no measurerd-worker has been running") != std::string::npos);
  }
  CHECK(d.log().find("waiting inputs failed") != std::string::npos);
}
