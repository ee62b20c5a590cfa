#include "common/util/proc_table.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>

namespace mrd::util {
namespace {

/// The whole of a small /proc file, or nullopt when it cannot be opened or read (a process
/// that exited between open and read gives ESRCH).
std::optional<std::string> read_proc_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace

std::optional<ProcessEntry> read_process(pid_t pid) {
  auto stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return std::nullopt;
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
  size_t close = stat->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  ProcessEntry p;
  p.pid = pid;
  int ppid = 0, pgid = 0;
  if (std::sscanf(stat->c_str() + close + 1, " %c %d %d", &p.state, &ppid, &pgid) != 3)
    return std::nullopt;
  p.ppid = static_cast<pid_t>(ppid);
  p.pgid = static_cast<pid_t>(pgid);
  return p;
}

std::vector<ProcessEntry> list_processes() {
  std::vector<ProcessEntry> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (auto p = read_process(static_cast<pid_t>(std::atol(name.c_str())))) out.push_back(*p);
  }
  return out;
}

std::vector<ProcessEntry> descendants(pid_t root, const std::vector<ProcessEntry>& all) {
  std::vector<ProcessEntry> out;
  std::set<pid_t> known = {root};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& p : all)
      if (known.count(p.ppid) && known.insert(p.pid).second) {
        out.push_back(p);
        grew = true;
      }
  }
  return out;
}

std::string process_cmdline(pid_t pid) {
  auto text = read_proc_file("/proc/" + std::to_string(pid) + "/cmdline");
  if (!text) return {};
  while (!text->empty() && text->back() == '\0') text->pop_back();
  for (char& c : *text)
    if (c == '\0') c = ' ';
  return *text;
}

}  // namespace mrd::util
