// Ending a process together with everything it started: the daemon ends a worker so, a worker
// ends a compiler past its timeout so. kill_process_tree stops the process and its group, finds
// every descendant through /proc (stopping each one, and each further group it finds, so that
// nothing forks away meanwhile), kills them all with SIGKILL and waits until each has exited.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <vector>

namespace mrd::util {

/// Kills `pid`, its process group and the groups of all its descendants (SIGKILL), then
/// waits at most `wait_limit` until every one of those processes has exited (it may remain a
/// zombie until its parent reaps it). Never signals this process's own group. Never throws.
void kill_process_tree(pid_t pid, std::chrono::milliseconds wait_limit);

/// The signalling half of kill_process_tree, which does not wait: returns a pidfd for `pid`
/// and each descendant it killed, readable once that process has exited (an event loop waits
/// on them). The caller closes them. Never throws.
std::vector<int> signal_process_tree(pid_t pid);

}  // namespace mrd::util
