// The process table as /proc shows it, read so that a process exiting meanwhile is simply
// absent, and the descendants of a process in it: one listing for the daemon (pinning a
// worker's threads and children), the process killer and the tests and soak that look for
// what a worker left running.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace mrd::util {

struct ProcessEntry {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgid = 0;
  char state = 0;  ///< /proc/PID/stat's state letter: 'R', 'S', 'Z', ...
};

/// /proc/PID/stat of one process; nullopt when it is gone (or was never there).
std::optional<ProcessEntry> read_process(pid_t pid);

/// Every process visible in /proc. A process that exits while the listing is made is left
/// out. Never throws.
std::vector<ProcessEntry> list_processes();

/// The processes of `all` that descend from `root` (children, their children, ...), each once;
/// `root` itself is not among them.
std::vector<ProcessEntry> descendants(pid_t root, const std::vector<ProcessEntry>& all);

/// /proc/PID/cmdline with its arguments joined by single spaces; empty when the process is
/// gone or has no command line (a kernel thread, a zombie). Never throws.
std::string process_cmdline(pid_t pid);

}  // namespace mrd::util
