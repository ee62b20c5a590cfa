#include "tests/soak/soak_daemon.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "common/util/error.h"

extern char** environ;

namespace mrd::soak {
namespace {

namespace fs = std::filesystem;

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return str_cat("killed by signal ", sig, " (", strsignal(sig), ")");
  }
  if (WIFEXITED(status)) return str_cat("exit code ", WEXITSTATUS(status));
  return "ended";
}

/// A datagram socket bound at `path` that receives sd_notify messages.
int bind_notify_socket(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(str_cat("socket: ", std::strerror(errno)));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    ::close(fd);
    throw std::runtime_error("notify socket path too long: " + path);
  }
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int e = errno;
    ::close(fd);
    throw std::runtime_error(str_cat("bind ", path, ": ", std::strerror(e)));
  }
  return fd;
}

}  // namespace

SoakDaemon::SoakDaemon(DaemonConfig config) : config_(std::move(config)) {
  fs::create_directories(tmp_dir());
  fs::permissions(tmp_dir(), fs::perms::owner_all, fs::perm_options::replace);
  const std::string notify_path = config_.dir + "/notify.sock";
  int notify_fd = bind_notify_socket(notify_path);

  // Everything the child needs is built before fork: it only calls async-signal-safe
  // functions afterwards.
  const std::string program = config_.build_dir + "/daemon/measurerd";
  std::vector<std::string> args = {program,
                                   "--socket",
                                   socket_path(),
                                   "--workers",
                                   std::to_string(config_.workers),
                                   "--cache-dir",
                                   cache_dir(),
                                   "--log-file",
                                   log_path(),
                                   "--log-level",
                                   "debug",
                                   "--limit-as-mb",
                                   std::to_string(config_.limit_as_mb),
                                   "--timing-policy",
                                   config_.timing_policy};
  if (config_.test_faults) args.push_back("--test-faults");
  args.insert(args.end(), config_.extra_args.begin(), config_.extra_args.end());
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string v(*e);
    if (v.rfind("NOTIFY_SOCKET=", 0) == 0 || v.rfind("TMPDIR=", 0) == 0 ||
        v.rfind("LISTEN_", 0) == 0)
      continue;
    env.push_back(v);
  }
  env.push_back("NOTIFY_SOCKET=" + notify_path);
  env.push_back("TMPDIR=" + tmp_dir());
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string stderr_path = config_.dir + "/measurerd.stderr";
  if (program.empty() || program[0] != '/')
    throw std::runtime_error("the build directory must be an absolute path: " + config_.build_dir);
  const std::string dir = config_.dir;
  const pid_t parent = ::getpid();

  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(notify_fd);
    throw std::runtime_error(str_cat("fork: ", std::strerror(errno)));
  }
  if (pid_ == 0) {
    // The daemon goes when the soak goes, whatever the reason.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);
    int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (err >= 0) ::dup2(err, 2);
    int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) ::dup2(null, 0);
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    ::execve(argv[0], argv.data(), envp.data());
    static const char msg[] = "measurerd-soak: cannot execute the daemon\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
    ::_exit(127);
  }
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));

  // READY=1, or the daemon's end, or a guard against a daemon that hangs while starting.
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool ready = false;
  std::string why = "no READY=1 within 120 s";
  while (!ready) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    give_up - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) break;
    pollfd fds[2] = {{notify_fd, POLLIN, 0}, {pidfd_, POLLIN, 0}};
    int n = ::poll(fds, pidfd_ >= 0 ? 2 : 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (fds[0].revents & POLLIN) {
      char buf[4096];
      ssize_t got = ::recv(notify_fd, buf, sizeof buf, 0);
      if (got > 0 &&
          std::string(buf, static_cast<size_t>(got)).find("READY=1") != std::string::npos)
        ready = true;
    } else if (fds[1].revents & POLLIN) {
      why = "it ended before READY=1";
      break;
    }
  }
  ::close(notify_fd);
  if (!ready) {
    std::string how = running() ? "still running; killed" : describe_wait_status(status_);
    if (!reaped_) {
      ::kill(pid_, SIGKILL);
      wait_exit(10);
    }
    std::ifstream err(stderr_path);
    std::string err_text(std::istreambuf_iterator<char>(err), {});
    throw std::runtime_error(
        str_cat("measurerd did not start (", why, ", ", how, ")\n", log_tail(20), err_text));
  }
}

SoakDaemon::~SoakDaemon() {
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait_exit(10);
  }
  if (pidfd_ >= 0) ::close(pidfd_);
}

bool SoakDaemon::running() {
  if (reaped_) return false;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    status_ = status;
    return false;
  }
  return true;
}

bool SoakDaemon::wait_exit(double seconds) {
  if (!running()) return true;
  auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (running()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    give_up - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return false;
    if (pidfd_ >= 0) {
      pollfd p{pidfd_, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(left));
    } else {
      ::usleep(10000);  // no pidfd (old kernel): look again shortly
    }
  }
  return true;
}

long SoakDaemon::fd_count() const {
  std::error_code ec;
  long n = 0;
  for (fs::directory_iterator it("/proc/" + std::to_string(pid_) + "/fd", ec), end;
       !ec && it != end; it.increment(ec))
    ++n;
  return ec ? -1 : n;
}

long SoakDaemon::rss_kb() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

size_t SoakDaemon::workers_started() const {
  static const std::regex started(R"(worker \d+ started)");
  std::ifstream in(log_path());
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) n += std::regex_search(line, started);
  return n;
}

std::string SoakDaemon::log_tail(size_t lines) const {
  std::ifstream in(log_path());
  std::deque<std::string> tail;
  std::string line;
  while (std::getline(in, line)) {
    tail.push_back(line);
    if (tail.size() > lines) tail.pop_front();
  }
  std::string out;
  for (const auto& l : tail) out += l + "\n";
  return out;
}

DaemonExit SoakDaemon::stop(double grace_seconds) {
  DaemonExit out;
  if (!running()) {
    out.crashed = true;
    out.how = "ended on its own during the soak: " + describe_wait_status(status_);
    return out;
  }
  ::kill(pid_, SIGTERM);
  if (!wait_exit(grace_seconds)) {
    ::kill(pid_, SIGKILL);
    wait_exit(10);
    out.crashed = true;
    out.how = str_cat("still running ", grace_seconds, " s after SIGTERM; killed");
    return out;
  }
  out.how = describe_wait_status(status_);
  out.crashed = !(WIFEXITED(status_) && WEXITSTATUS(status_) == 0);
  if (out.crashed) out.how = "ended badly (" + out.how + "); SIGTERM had been sent to stop it";
  return out;
}

}  // namespace mrd::soak
