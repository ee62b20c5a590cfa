// The real worker pool: N measurerd-worker processes, each exec'ed fresh (Boost.Process; never
// a fork of the daemon's image) with `--serve`, in its own process group, talking frames over
// its stdin and stdout pipes (their frames through the pure WorkerLink). A job past its timeout gets its worker's whole process group
// killed (SIGKILL) and BUILD_TIMEOUT / RUN_TIMEOUT; a worker that dies mid-job gives
// COMPILE_HOST (building) or RUNTIME_DEVICE (running). Either way the worker is replaced and
// the pool returns to N. A worker that ends is killed with its whole process tree (compilers
// in groups of their own included), its exit awaited on the event loop (never blocking it),
// and its private temporary directory and partial builds are removed before its replacement
// starts. A worker that cannot start (the spawn fails, or it ends before it says ready) is
// retried after a pause, up to `start_attempts` times in a row; then the pool gives up on it:
// before every worker has been ready once, `on_fatal` gets the reason (the daemon exits 1);
// later the pool runs short and degraded() says why.
#pragma once

#include <boost/asio.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "daemon/server/worker_link.h"
#include "daemon/server/worker_pool.h"

namespace mrd::daemon {

struct WorkerLimits {
  uint64_t address_space_mb = 16384;  ///< 0: unlimited
  uint64_t cpu_seconds = 3600;        ///< per worker process; 0: unlimited
  uint64_t open_files = 256;
  /// Total size of the tasks each worker keeps decoded (besides kWorkerTaskCacheEntries).
  uint64_t task_cache_mb = proto::kDefaultWorkerTaskCacheMb;
};

/// Task bytes written to workers (each task once per worker, unless a worker lost it).
struct TaskTraffic {
  uint64_t bytes = 0;
  uint64_t resends = 0;  ///< jobs sent again with their task after a TaskMissing
};

struct ProcessPoolConfig {
  size_t size = 1;
  std::string worker_path;
  std::string cache_dir;
  std::string compiler;  ///< empty: the worker's default
  std::string cflags;    ///< empty: the worker's default
  WorkerLimits limits;
  /// Testing only: workers accept fault.* workloads (`measurerd-worker --test-faults`).
  bool test_faults = false;
  /// Consecutive failed starts of one worker after which the pool stops retrying it.
  int start_attempts = 3;
  /// Pause between two starts of a worker that failed to start.
  std::chrono::milliseconds start_retry_pause{1000};
};

class ProcessWorkerPool : public WorkerPool {
 public:
  ProcessWorkerPool(boost::asio::io_context& io, ProcessPoolConfig config);
  ~ProcessWorkerPool() override;

  /// Spawns the workers; `on_all_ready` runs once, when each first worker has said ready.
  /// `on_fatal` runs instead, at most once, when a worker fails start_attempts starts in a row
  /// before then, with the reason.
  void start(std::function<void()> on_all_ready,
             std::function<void(const std::string& why)> on_fatal = {});

  size_t idle() const override;
  size_t size() const override { return config_.size; }
  void submit(Job job, JobDone done) override;
  void pin_builds(const std::vector<int>& cores) override;
  void set_on_idle(std::function<void()> on_idle) override { on_idle_ = std::move(on_idle); }
  std::vector<proto::WorkerStatus> status() const override;
  void stop() override;
  /// Empty while the pool is whole; else why it runs short (workers it gave up starting).
  std::string degraded() const;

  /// The argument list a worker is started with (after the program path), but for its own
  /// `--temp-dir`.
  std::vector<std::string> worker_args() const;
  TaskTraffic task_traffic() const { return traffic_; }

 private:
  struct Worker;
  /// Spawns one worker; `failed_starts`: how many starts of this slot failed in a row.
  void spawn(int failed_starts = 0);
  /// After a failed start: spawns the slot again after a pause, or gives up on it.
  void start_failed(int failed_starts, const std::string& why);
  void read_from(const std::shared_ptr<Worker>& w);
  void on_ready(Worker& w);
  void on_result(Worker& w, JobOutcome outcome, bool retire);
  void on_exit(Worker& w, const std::string& why, bool timed_out);
  /// Takes the worker out of the pool, kills its process tree and waits for the exits on the
  /// event loop (never blocking it); `on_gone` gets the worker's wait status once reaped.
  void end_worker(Worker& w, std::function<void(int status)> on_gone);
  void reap(Worker& w);
  /// Kills and reaps at once, blocking (at stop).
  void remove_now(Worker& w);
  void notify_idle();
  /// Writes a frame to the worker's stdin; a failed write is the worker's death.
  void write_to(const std::shared_ptr<Worker>& w, std::string frame);

  boost::asio::io_context& io_;
  ProcessPoolConfig config_;
  std::vector<std::shared_ptr<Worker>> workers_;
  std::vector<std::shared_ptr<Worker>> dying_;  ///< killed, not yet reaped
  static constexpr std::chrono::milliseconds kExitWait{2000};
  std::function<void()> on_idle_;
  std::function<void()> on_all_ready_;
  size_t first_ready_ = 0;
  uint64_t next_job_id_ = 1;
  uint64_t next_worker_serial_ = 1;
  bool stopped_ = false;
  std::function<void(const std::string&)> on_fatal_;
  boost::asio::steady_timer respawn_timer_;
  std::vector<int> pending_respawns_;  ///< failed starts of each slot waiting for the timer
  size_t given_up_ = 0;                ///< slots no longer started
  std::string give_up_reason_;
  TaskTraffic traffic_;
};

}  // namespace mrd::daemon
