#include "common/util/process_tree.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <vector>

#include "common/util/proc_table.h"

namespace mrd::util {
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
  std::vector<ProcessEntry> tree;
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
