#include "tests/soak/worker_killer.h"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <vector>

#include "client/lib/client.h"
#include "common/util/error.h"
#include "tests/soak/leftovers.h"

namespace mrd::soak {

WorkerKiller::WorkerKiller(std::string socket_path, ClientRunner& clients, uint64_t every,
                           uint64_t seed, std::string dir, pid_t daemon)
    : socket_path_(std::move(socket_path)),
      clients_(clients),
      every_(every),
      seed_(seed),
      dir_(std::move(dir)),
      daemon_(daemon) {}

WorkerKiller::~WorkerKiller() {
  stop();
}

void WorkerKiller::start() {
  if (every_ == 0) return;
  thread_ = std::thread([this] { loop(); });
}

void WorkerKiller::stop() {
  stop_ = true;
  clients_.wake();
  if (thread_.joinable()) thread_.join();
}

void WorkerKiller::abandon() {
  stop_ = true;
  clients_.wake();
  if (thread_.joinable()) thread_.detach();
}

void WorkerKiller::look_for_orphans(pid_t victim) {
  // Once the daemon has reaped the victim, whatever it had started and is still running
  // belongs to init. The pause paces the look at /proc; the wait ends on the victim's exit.
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::filesystem::exists("/proc/" + std::to_string(victim)) &&
         std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  for (const auto& p : orphaned_processes(dir_, daemon_))
    if (orphan_pids_.insert(p.pid).second)
      orphans_.push_back(str_cat("pid ", p.pid, " (after worker ", victim,
                                 " was killed): ", p.cmdline.substr(0, 300)));
}

void WorkerKiller::loop() {
  std::mt19937_64 rng(seed_ ^ 0x6b696c6cULL);
  try {
    client::Client status(socket_path_, "soak-killer");
    uint64_t next = every_;
    while (!stop_) {
      clients_.wait_received(next, stop_);
      if (stop_ || clients_.received() < next) return;  // stopped, or the clients are done
      next = clients_.received() + every_;
      // Look for a busy worker for a while: the pool may be between jobs. The pause paces
      // the status requests; nothing waits on it for correctness. One kill in four may hit
      // an idle worker too, the moment between two jobs.
      const bool any = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
      for (int attempt = 0; attempt < 200 && !stop_; ++attempt) {
        std::vector<int32_t> busy;
        for (const auto& w : status.status().worker_list) {
          if (w.pid <= 1 || w.pid == daemon_) continue;  // never a group, init or the daemon
          if (w.state == proto::WorkerState::Building || w.state == proto::WorkerState::Running ||
              (any && w.state == proto::WorkerState::Idle))
            busy.push_back(w.pid);
        }
        if (!busy.empty()) {
          int32_t victim = busy[std::uniform_int_distribution<size_t>(0, busy.size() - 1)(rng)];
          if (::kill(victim, SIGKILL) == 0) {
            ++kills_;
            look_for_orphans(victim);
          }
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

}  // namespace mrd::soak
