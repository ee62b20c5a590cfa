// Ending a worker together with everything it started. A worker's children normally share its
// process group, but a compiler run by the build path gets a group of its own, which a kill of
// the worker's group would miss. kill_process_tree stops the worker's group, finds every
// descendant through /proc (stopping each further group it finds, so nothing forks away
// meanwhile), kills all those groups with SIGKILL and waits until each process has exited.
#pragma once

#include <sys/types.h>

#include <chrono>

namespace mrd::daemon {

/// Kills `pid`, its process group and the groups of all its descendants (SIGKILL), then
/// waits at most `wait_limit` until every one of those processes has exited (it may remain a
/// zombie until its parent reaps it). Never signals this process's own group. Never throws.
void kill_process_tree(pid_t pid, std::chrono::milliseconds wait_limit);

}  // namespace mrd::daemon
