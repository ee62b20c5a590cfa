#include "client/cli/interrupt.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "client/cli/commands.h"

namespace mrd::cli {

InterruptWatcher::InterruptWatcher(std::function<void()> on_first)
    : on_first_(std::move(on_first)) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  if (::pthread_sigmask(SIG_BLOCK, &mask, &old_mask_) != 0)
    throw std::runtime_error("cannot block SIGINT");
  signal_fd_ = ::signalfd(-1, &mask, SFD_CLOEXEC);
  if (signal_fd_ < 0 || ::pipe2(stop_pipe_, O_CLOEXEC) != 0) {
    std::string e = std::strerror(errno);
    if (signal_fd_ >= 0) ::close(signal_fd_);
    ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    throw std::runtime_error("cannot watch SIGINT: " + e);
  }
  thread_ = std::thread([this] { watch(); });
}

InterruptWatcher::~InterruptWatcher() {
  char b = 0;
  while (::write(stop_pipe_[1], &b, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
  ::close(signal_fd_);
  ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

void InterruptWatcher::watch() {
  for (;;) {
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    signalfd_siginfo info;
    if (::read(signal_fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) continue;
    if (interrupted_.exchange(true)) {
      static const char msg[] = "\nmeasurer: interrupted again; exiting now\n";
      (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
      ::_exit(kInterrupted);
    }
    if (on_first_) on_first_();
  }
}

}  // namespace mrd::cli
