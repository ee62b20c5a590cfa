#include "daemon/server/core_split.h"

#include <sched.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

#include "common/util/proc_table.h"

namespace mrd::daemon {

std::vector<int> allowed_cores() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

std::optional<CoreSplit> split_cores(const std::vector<int>& cores, int num_cores) {
  size_t k = num_cores <= 0 ? cores.size() : static_cast<size_t>(num_cores);
  if (cores.empty() || k >= cores.size()) return std::nullopt;
  CoreSplit s;
  s.build.assign(cores.begin(), cores.end() - static_cast<std::ptrdiff_t>(k));
  s.timing.assign(cores.end() - static_cast<std::ptrdiff_t>(k), cores.end());
  return s;
}

bool pin_process(int pid, const std::vector<int>& cores) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cores)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc/" + std::to_string(pid) + "/task", ec);
  if (ec) return ::sched_setaffinity(pid, sizeof set, &set) == 0;
  bool ok = true;
  for (const auto& e : it) {
    int tid = 0;
    try {
      tid = std::stoi(e.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    if (::sched_setaffinity(tid, sizeof set, &set) != 0 && errno != ESRCH) ok = false;
  }
  return ok;
}

bool pin_process_tree(int pid, const std::vector<int>& cores) {
  bool ok = pin_process(pid, cores);
  for (const auto& p : util::descendants(pid, util::list_processes()))
    if (!pin_process(p.pid, cores) && errno != ESRCH) ok = false;
  return ok;
}

}  // namespace mrd::daemon
