// A real measurerd for integration tests: started from the build directory on a socket in a
// fresh temporary directory, with its own build cache, and stopped (SIGTERM) at the end, or
// by the kernel (parent-death signal) when the test process dies first.
// Readiness is the daemon's own READY=1, received on a NOTIFY_SOCKET the fixture listens on,
// then a Hello answered on the socket — never a sleep.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "client/lib/client.h"
#include "common/util/proc_table.h"
#include "tests/support/temp_dir.h"

namespace mrd::testing {

namespace bp = boost::process;
namespace fs = std::filesystem;

inline std::string build_path(const std::string& rel) {
  return std::string(MEASURERD_BINARY_DIR) + "/" + rel;
}

/// Receives sd_notify datagrams.
struct NotifySocket {
  int fd = -1;
  std::string path;
  explicit NotifySocket(const fs::path& dir) : path((dir / "notify.sock").string()) {
    fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    timeval tv{120, 0};  // a guard against a hung test, not a synchronisation
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~NotifySocket() { close(); }
  void close() {
    if (fd < 0) return;
    ::close(fd);
    ::unlink(path.c_str());
    fd = -1;
  }
  /// Blocks until a datagram containing `what` arrives; false on the guard timeout.
  bool wait_for(const std::string& what) {
    char buf[4096];
    for (;;) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n < 0) return false;
      if (std::string(buf, static_cast<size_t>(n)).find(what) != std::string::npos) return true;
    }
  }
};

class Daemon {
 public:
  /// `socket` empty: a socket in the daemon's own temporary directory.
  explicit Daemon(int workers = 2, std::vector<std::string> extra = {}, std::string socket = "")
      : socket_(socket.empty() ? (dir_.path / "measurerd.sock").string() : std::move(socket)),
        notify_(dir_.path) {
    std::vector<std::string> args = {"--socket",    socket_,
                                     "--workers",   std::to_string(workers),
                                     "--cache-dir", (dir_.path / "cache").string(),
                                     "--log-level", "debug"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto env = boost::this_process::environment();
    env["NOTIFY_SOCKET"] = notify_.path;
    // The daemon goes when the test process goes, whatever the reason (a test that crashes
    // must not leave a daemon holding ctest's output pipe open until ctest's timeout).
    const pid_t parent = ::getpid();
    child_ = bp::child(build_path("daemon/measurerd"), bp::args(args), env,
                       bp::std_err > (dir_.path / "measurerd.log").string(),
                       bp::extend::on_exec_setup = [parent](auto&) {
                         ::prctl(PR_SET_PDEATHSIG, SIGTERM);
                         if (::getppid() != parent) ::_exit(127);
                       });
    REQUIRE(notify_.wait_for("READY=1"));
    // Later STATUS= datagrams would fill an unread queue and block the daemon's sd_notify:
    // with the socket gone, they fail at once, as they would without systemd.
    notify_.close();
    client::Client hello(socket_);  // answers once serving
    REQUIRE(hello.welcome().workers == static_cast<uint32_t>(workers));
  }
  ~Daemon() {
    if (child_.running()) {
      ::kill(child_.id(), SIGTERM);
      std::error_code ec;
      child_.wait(ec);
    }
  }

  const std::string& socket() const { return socket_; }
  pid_t pid() { return child_.id(); }
  /// Sends SIGTERM and returns the exit code.
  int terminate() {
    ::kill(child_.id(), SIGTERM);
    child_.wait();
    return child_.exit_code();
  }
  std::string log() const {
    std::ifstream in(dir_.path / "measurerd.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  const fs::path& dir() const { return dir_.path; }

 private:
  TempDir dir_;
  std::string socket_;
  NotifySocket notify_;
  bp::child child_;
};

/// True while a process with this pid exists (zombies included).
inline bool process_exists(pid_t pid) {
  return fs::exists("/proc/" + std::to_string(pid));
}

/// True while a process with this pid exists and has not ended (a zombie has ended).
inline bool process_running(pid_t pid) {
  auto p = util::read_process(pid);
  return p && p->state != 'Z' && p->state != 'X';
}

/// The text of a file, empty when it cannot be read.
inline std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// What a run of build/client/measurer printed.
struct MeasurerOutput {
  int code = -1;
  std::vector<std::string> lines;  ///< stdout, line by line
  std::string err;
};

/// Runs measurer with `args`, its output in files under `dir`, and waits for it.
inline MeasurerOutput run_measurer(const std::vector<std::string>& args, const fs::path& dir) {
  std::string out = (dir / "measurer.out").string(), err = (dir / "measurer.err").string();
  fs::remove(out);  // the redirection does not truncate
  fs::remove(err);
  bp::child c(build_path("client/measurer"), bp::args(args), bp::std_out > out, bp::std_err > err);
  c.wait();
  MeasurerOutput o;
  o.code = c.exit_code();
  std::ifstream in(out);
  for (std::string l; std::getline(in, l);) o.lines.push_back(l);
  o.err = file_text(err);
  return o;
}

/// Occurrences of `what` in `text`.
inline size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

inline measure::Task function_task(const std::string& name,
                                   std::vector<registry::WorkloadArg> args) {
  measure::Task t;
  t.workload = registry::FunctionWorkload{name, std::move(args)};
  return t;
}

inline measure::Task matmul_task(int64_t n) {
  return function_task("matmul", {n, n, n, std::string("float32")});
}

/// Quick timing options: one call per repeat, no minimum repeat time.
inline measure::MeasureOptions quick_options() {
  measure::MeasureOptions o;
  o.number = 1;
  o.repeat = 1;
  o.min_repeat_ms = 0;
  return o;
}

}  // namespace mrd::testing
