// The measurerd under soak: started from a build directory with everything it writes inside
// one private directory (socket, build cache, log, and TMPDIR for the compilers its workers
// run), its working directory there too, so that anything it leaves behind can be found.
// Readiness is the daemon's own READY=1 on a NOTIFY_SOCKET this side listens on. Its file
// descriptors and resident memory are read from /proc; at the end it is stopped with SIGTERM
// and its exit is judged.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace mrd::soak {

struct DaemonConfig {
  std::string build_dir;  ///< absolute; holds daemon/measurerd and daemon/measurerd-worker
  std::string dir;        ///< the private directory
  int workers = 2;
  bool test_faults = true;
  std::string timing_policy = "exclusive";  ///< the daemon's --timing-policy
  uint64_t limit_as_mb = 1024;              ///< workers' address-space limit
  std::vector<std::string> extra_args;      ///< more measurerd flags
};

/// How the daemon ended.
struct DaemonExit {
  bool crashed = false;  ///< exited on its own, by a signal, with a non-zero code, or hung
  std::string how;       ///< e.g. "exit code 0", "killed by signal 11 (Segmentation fault)"
};

class SoakDaemon {
 public:
  /// Starts the daemon and waits for READY=1. Throws std::runtime_error (with the log's tail)
  /// when it does not start.
  explicit SoakDaemon(DaemonConfig config);
  ~SoakDaemon();
  SoakDaemon(const SoakDaemon&) = delete;
  SoakDaemon& operator=(const SoakDaemon&) = delete;

  pid_t pid() const { return pid_; }
  std::string socket_path() const { return config_.dir + "/measurerd.sock"; }
  std::string cache_dir() const { return config_.dir + "/cache"; }
  std::string tmp_dir() const { return config_.dir + "/tmp"; }
  std::string log_path() const { return config_.dir + "/measurerd.log"; }

  /// Whether the process is still running (not exited, not a zombie we reaped).
  bool running();
  /// Open file descriptors of the daemon; -1 when unreadable.
  long fd_count() const;
  /// VmRSS of the daemon in KiB; -1 when unreadable.
  long rss_kb() const;
  /// Workers the daemon started, from its log ("worker <pid> started").
  size_t workers_started() const;
  /// The last `lines` lines of the log.
  std::string log_tail(size_t lines) const;

  /// SIGTERM, then waits up to `grace_seconds`; a daemon still there then is killed and
  /// counted as a crash. A daemon that had already ended is a crash too.
  DaemonExit stop(double grace_seconds);

 private:
  /// Waits for the process to end, up to `seconds`; true when it ended (and was reaped).
  bool wait_exit(double seconds);

  DaemonConfig config_;
  pid_t pid_ = -1;
  int pidfd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace mrd::soak
