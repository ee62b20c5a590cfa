#include "common/util/process_tree.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace mrd::util {
namespace {

struct ProcessInfo {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgid = 0;
};

/// Every process visible in /proc, with its parent and group.
std::vector<ProcessInfo> list_processes() {
  std::vector<ProcessInfo> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;  // gone meanwhile
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    ProcessInfo p;
    p.pid = static_cast<pid_t>(std::atol(name.c_str()));
    if (rest >> state >> p.ppid >> p.pgid) out.push_back(p);
  }
  return out;
}

std::vector<ProcessInfo> descendants(pid_t root, const std::vector<ProcessInfo>& all) {
  std::vector<ProcessInfo> out;
  std::set<pid_t> known = {root};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& p : all)
      if (known.count(p.ppid) && !known.count(p.pid)) {
        known.insert(p.pid);
        out.push_back(p);
        grew = true;
      }
  }
  return out;
}

}  // namespace

std::vector<int> signal_process_tree(pid_t pid) {
  std::vector<int> fds;
  if (pid <= 1) return fds;
  const pid_t own_group = ::getpgrp();
  std::set<pid_t> groups;
  auto stop_group = [&](pid_t g) {
    if (g <= 1 || g == own_group || groups.count(g)) return false;
    ::kill(-g, SIGSTOP);
    groups.insert(g);
    return true;
  };
  std::set<pid_t> stopped;
  auto stop_process = [&](pid_t p) {
    if (!stopped.insert(p).second) return false;
    ::kill(p, SIGSTOP);
    return true;
  };
  stop_group(::getpgid(pid));
  stop_process(pid);
  std::vector<ProcessInfo> tree;
  // Until a listing finds nothing new: a process not yet stopped may have forked meanwhile.
  for (int round = 0; round < 16; ++round) {
    tree = descendants(pid, list_processes());
    bool grew = false;
    for (const auto& p : tree) {
      grew = stop_group(p.pgid) || grew;
      grew = stop_process(p.pid) || grew;
    }
    if (!grew) break;
  }
  auto watch = [&](pid_t p) {
    int fd = static_cast<int>(::syscall(SYS_pidfd_open, p, 0));
    if (fd >= 0) fds.push_back(fd);
  };
  watch(pid);
  for (const auto& p : tree) watch(p.pid);
  for (pid_t g : groups) ::kill(-g, SIGKILL);
  ::kill(pid, SIGKILL);
  for (const auto& p : tree) ::kill(p.pid, SIGKILL);
  return fds;
}

void kill_process_tree(pid_t pid, std::chrono::milliseconds wait_limit) {
  std::vector<pollfd> waits;
  for (int fd : signal_process_tree(pid)) waits.push_back({fd, POLLIN, 0});
  // A pidfd becomes readable when its process has exited.
  auto deadline = std::chrono::steady_clock::now() + wait_limit;
  for (auto& w : waits) {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      if (::poll(&w, 1, static_cast<int>(left.count())) < 0 && errno == EINTR) continue;
      break;
    }
    ::close(w.fd);
  }
}

}  // namespace mrd::util
