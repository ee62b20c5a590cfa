// Ctrl-C for commands that stream results: while an InterruptWatcher lives, SIGINT no longer
// kills measurer. The first SIGINT calls a handler (which cancels the request, so the command
// can print what it has and exit 130); a second one exits at once with kInterrupted (130).
#pragma once

#include <atomic>
#include <functional>
#include <signal.h>
#include <thread>

namespace mrd::cli {

class InterruptWatcher {
 public:
  /// Blocks SIGINT in the calling thread (call it before starting any other thread) and takes
  /// it on a thread of its own. `on_first` runs on that thread.
  explicit InterruptWatcher(std::function<void()> on_first);
  /// Stops the watcher and restores the signal mask.
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

  /// True once the first SIGINT arrived.
  bool interrupted() const { return interrupted_.load(); }

 private:
  void watch();

  std::function<void()> on_first_;
  std::atomic<bool> interrupted_{false};
  sigset_t old_mask_;
  int signal_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::thread thread_;
};

}  // namespace mrd::cli
