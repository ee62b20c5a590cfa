// The pinned timing policy's use of cores: a timing on `num_cores` threads runs on the last
// num_cores cores the daemon may use, the builds of the same task on the others, and a process
// is moved onto a set of cores (every one of its threads, and so what it starts later).
#pragma once

#include <optional>
#include <vector>

namespace mrd::daemon {

struct CoreSplit {
  std::vector<int> timing;  ///< cores of the timed kernel's threads
  std::vector<int> build;   ///< cores builds may use meanwhile
};

/// The cores this process may run on (its affinity mask), in increasing order.
std::vector<int> allowed_cores();

/// How `cores` divide for a timing on `num_cores` threads (0: every core); nullopt when no
/// core would be left for builds (the timing then needs the machine to itself).
std::optional<CoreSplit> split_cores(const std::vector<int>& cores, int num_cores);

/// Sets the affinity of every thread of process `pid` to `cores`. False (errno kept) when
/// the process or one of its threads could not be moved; threads that end meanwhile are no
/// failure.
bool pin_process(int pid, const std::vector<int>& cores);

/// pin_process for `pid` and every process descended from it (a worker's compilers).
bool pin_process_tree(int pid, const std::vector<int>& cores);

}  // namespace mrd::daemon
