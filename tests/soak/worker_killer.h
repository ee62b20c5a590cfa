// Kills workers under load: each time the clients have received another `every` results, it
// asks the daemon's status for a worker that is building or running (one time in four, an idle
// one will do too), picks one at random and sends it SIGKILL. The daemon must give the input
// it was working on COMPILE_HOST or RUNTIME_DEVICE, replace the worker, and go on.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/soak/client_runner.h"

namespace mrd::soak {

class WorkerKiller {
 public:
  /// `every` 0: never kills. After each kill, once the victim is gone, it looks for processes
  /// referring to `dir` that are no longer descendants of `daemon` (orphans).
  WorkerKiller(std::string socket_path, ClientRunner& clients, uint64_t every, uint64_t seed,
               std::string dir, pid_t daemon);
  ~WorkerKiller();

  void start();
  /// Stops the thread and waits for it.
  void stop();
  /// Stops the thread without waiting for it (it may be stuck on a daemon that hangs); the
  /// process must end soon after.
  void abandon();
  uint64_t kills() const { return kills_; }
  /// Orphaned processes seen after kills, one line each (read after stop()).
  const std::vector<std::string>& orphans() const { return orphans_; }
  /// A message when the killer could not talk to the daemon; empty otherwise.
  std::string error() const { return error_; }

 private:
  void loop();
  void look_for_orphans(pid_t victim);

  std::string socket_path_;
  ClientRunner& clients_;
  uint64_t every_;
  uint64_t seed_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> kills_{0};
  std::string dir_;
  pid_t daemon_;
  std::set<pid_t> orphan_pids_;
  std::vector<std::string> orphans_;
  std::string error_;
  std::thread thread_;
};

}  // namespace mrd::soak
