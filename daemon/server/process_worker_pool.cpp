#include "daemon/server/process_worker_pool.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <boost/process.hpp>

#include "common/proto/codec.h"
#include "common/proto/frame_decoder.h"
#include "common/util/error.h"
#include "common/util/process_tree.h"
#include "daemon/server/core_split.h"
#include "daemon/server/worker_death.h"
#include "daemon/server/worker_scratch.h"
#include "daemon/worker/sanitizer_build.h"

namespace mrd::daemon {

namespace asio = boost::asio;
namespace bp = boost::process;
using measure::MeasureErrorNo;
using proto::WorkerState;

struct ProcessWorkerPool::Worker : std::enable_shared_from_this<Worker> {
  Worker(asio::io_context& io, uint64_t task_cache_bytes)
      : to(io), from(io), link(proto::kDefaultMaxBody, task_cache_bytes), timer(io) {}

  bp::async_pipe to;    // worker's stdin
  bp::async_pipe from;  // worker's stdout
  bp::group group;
  bp::child child;
  WorkerLink link;
  std::array<char, 64 * 1024> buffer;
  asio::steady_timer timer;  // the job's timeout; then the deadline for the process to exit
  int pid = 0;
  int failed_starts = 0;  // of its slot, in a row, before this start
  uint64_t jobs = 0;
  JobDone done;
  bool dead = false;
  std::string temp_dir;  // the worker's private TMPDIR
  // Ending: the pidfds of the killed processes, waited on by the event loop.
  std::vector<std::shared_ptr<asio::posix::stream_descriptor>> exit_waits;
  size_t exits_pending = 0;
  bool reaped = false;
  std::function<void(int status)> on_gone;
};

namespace {

void set_cloexec(int fd) {
  int flags = fcntl(fd, F_GETFD);
  if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

}  // namespace

ProcessWorkerPool::ProcessWorkerPool(asio::io_context& io, ProcessPoolConfig config)
    : io_(io), config_(std::move(config)), respawn_timer_(io) {}

ProcessWorkerPool::~ProcessWorkerPool() {
  stop();
}

std::vector<std::string> ProcessWorkerPool::worker_args() const {
  std::vector<std::string> args = {"--serve",
                                   "--cache-dir",
                                   config_.cache_dir,
                                   "--limit-as-mb",
                                   std::to_string(config_.limits.address_space_mb),
                                   "--limit-cpu-seconds",
                                   std::to_string(config_.limits.cpu_seconds),
                                   "--limit-open-files",
                                   std::to_string(config_.limits.open_files),
                                   "--task-cache-mb",
                                   std::to_string(config_.limits.task_cache_mb)};
  if (!config_.compiler.empty()) args.insert(args.end(), {"--compiler", config_.compiler});
  if (!config_.cflags.empty()) args.insert(args.end(), {"--cflags", config_.cflags});
  if (config_.test_faults) args.push_back("--test-faults");
  return args;
}

void ProcessWorkerPool::start(std::function<void()> on_all_ready,
                              std::function<void(const std::string&)> on_fatal) {
  on_all_ready_ = std::move(on_all_ready);
  on_fatal_ = std::move(on_fatal);
  if (worker::kSanitizerBuild && config_.limits.address_space_mb != 0)
    spdlog::warn("sanitizer build: workers run without an address-space limit (RLIMIT_AS); "
                 "--limit-as-mb {} is not applied", config_.limits.address_space_mb);
  remove_stale_leftovers(config_.cache_dir);
  for (size_t i = 0; i < config_.size; ++i) spawn();
}

void ProcessWorkerPool::spawn(int failed_starts) {
  if (stopped_) return;
  auto w = std::make_shared<Worker>(io_, config_.limits.task_cache_mb << 20);
  w->failed_starts = failed_starts;
  try {
    w->temp_dir = make_worker_temp_dir(config_.cache_dir, next_worker_serial_++);
    std::vector<std::string> args = worker_args();
    args.insert(args.end(), {"--temp-dir", w->temp_dir});
    // The worker gets no systemd environment: it must not notify or take sockets.
    bp::environment env = boost::this_process::environment();  // a copy
    env.erase("NOTIFY_SOCKET");
    env.erase("LISTEN_FDS");
    env.erase("LISTEN_PID");
    env.erase("LISTEN_FDNAMES");
    env.erase("WATCHDOG_USEC");
    env.erase("WATCHDOG_PID");
    w->child = bp::child(config_.worker_path, bp::args(args), env,
                         bp::std_in<w->to, bp::std_out> w->from, w->group);
  } catch (const std::exception& e) {
    remove_worker_leftovers(config_.cache_dir, w->temp_dir, 0);
    start_failed(failed_starts + 1, str_cat("cannot start ", config_.worker_path, ": ", e.what()));
    return;
  }
  set_cloexec(w->to.native_sink());
  set_cloexec(w->from.native_source());
  w->pid = w->child.id();
  spdlog::debug("worker {} started", w->pid);
  workers_.push_back(w);

  read_from(w);
}

void ProcessWorkerPool::read_from(const std::shared_ptr<Worker>& worker) {
  std::weak_ptr<Worker> weak = worker;
  worker->from.async_read_some(
      asio::buffer(worker->buffer), [this, weak](boost::system::error_code ec, size_t n) {
        auto w = weak.lock();
        if (!w || w->dead) return;
        if (ec) {
          on_exit(*w, "", false);
          return;
        }
        for (auto& e : w->link.feed(std::string_view(w->buffer.data(), n))) {
          switch (e.kind) {
            case WorkerEvent::Kind::Ready:
              on_ready(*w);
              break;
            case WorkerEvent::Kind::Result:
              on_result(*w, std::move(e.outcome), e.retire);
              break;
            case WorkerEvent::Kind::Resend:
              spdlog::debug("worker {} has not got the task of job {}; sending it", w->pid,
                            w->link.job_id());
              ++traffic_.resends;
              traffic_.bytes += w->link.job_task_size();
              write_to(w, std::move(e.frame));
              break;
            case WorkerEvent::Kind::Broken:
              spdlog::error("worker {}: {}", w->pid, e.why);
              on_exit(*w, e.why, false);
              return;
          }
          if (w->dead) return;
        }
        read_from(w);
      });
}

void ProcessWorkerPool::start_failed(int failed_starts, const std::string& why) {
  if (stopped_) return;
  int attempts = std::max(config_.start_attempts, 1);
  if (failed_starts >= attempts) {
    std::string reason = str_cat(why, " (", failed_starts, " starts in a row failed)");
    if (on_all_ready_) {
      // Not serving yet: the daemon cannot start.
      on_all_ready_ = nullptr;
      spdlog::error("worker {}; giving up", reason);
      if (auto fatal = std::move(on_fatal_)) fatal(reason);
      return;
    }
    ++given_up_;
    give_up_reason_ = reason;
    spdlog::error("worker {}; giving up on it: measurerd runs degraded with {} of {} workers "
                  "until it is restarted", reason, config_.size - given_up_, config_.size);
    return;
  }
  spdlog::error("worker {}; retrying in {} ms (attempt {} of {})", why,
                config_.start_retry_pause.count(), failed_starts + 1, attempts);
  pending_respawns_.push_back(failed_starts);
  if (pending_respawns_.size() > 1) return;  // the timer is already set
  respawn_timer_.expires_after(config_.start_retry_pause);
  respawn_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) return;
    auto slots = std::move(pending_respawns_);
    pending_respawns_.clear();
    for (int failed : slots) spawn(failed);
  });
}

std::string ProcessWorkerPool::degraded() const {
  if (given_up_ == 0) return "";
  return str_cat(given_up_, " of ", config_.size, " workers could not be started: ",
                 give_up_reason_);
}

void ProcessWorkerPool::on_ready(Worker& w) {
  spdlog::debug("worker {} ready", w.pid);
  if (first_ready_ < config_.size && ++first_ready_ == config_.size && on_all_ready_) {
    auto cb = std::move(on_all_ready_);
    on_all_ready_ = nullptr;
    cb();
  }
  notify_idle();
}

size_t ProcessWorkerPool::idle() const {
  size_t n = 0;
  for (const auto& w : workers_) n += !w->dead && w->link.state() == WorkerState::Idle;
  return n;
}

void ProcessWorkerPool::submit(Job job, JobDone done) {
  std::shared_ptr<Worker> w;
  for (const auto& c : workers_)
    if (!c->dead && c->link.state() == WorkerState::Idle) {
      w = c;
      break;
    }
  MRD_CHECK(w, "submit with no idle worker");
  // The pinned policy: the worker's threads (and what it starts) run on the job's cores.
  if (!job.cores.empty() && !pin_process_tree(w->pid, job.cores))
    spdlog::warn("worker {}: cannot pin it to its job's cores: {}", w->pid, std::strerror(errno));
  w->done = std::move(done);
  uint64_t sent_before = w->link.task_bytes_sent();
  std::string frame = w->link.start_job(next_job_id_++, job);
  traffic_.bytes += w->link.task_bytes_sent() - sent_before;
  double timeout = job.phase == Phase::Build ? job.options.build_timeout
                                              : job.options.run_timeout +
                                                    (job.options.check_correctness ? measure::kCorrectnessCheckSeconds : 0);
  std::weak_ptr<Worker> weak = w;
  uint64_t id = w->link.job_id();
  w->timer.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(timeout)));
  w->timer.async_wait([this, weak, id, timeout](boost::system::error_code ec) {
    auto w = weak.lock();
    if (ec || !w || w->dead || w->link.job_id() != id ||
        (w->link.state() != WorkerState::Building && w->link.state() != WorkerState::Running))
      return;
    spdlog::warn("worker {}: job {} passed its {} s timeout; killing it", w->pid, id, timeout);
    on_exit(*w, "", true);
  });
  write_to(w, std::move(frame));
}

void ProcessWorkerPool::write_to(const std::shared_ptr<Worker>& w, std::string frame) {
  std::weak_ptr<Worker> weak = w;
  auto data = std::make_shared<std::string>(std::move(frame));
  asio::async_write(w->to, asio::buffer(*data),
                    [this, weak, data](boost::system::error_code ec, size_t) {
                      auto w = weak.lock();
                      if (ec && w && !w->dead) on_exit(*w, "", false);
                    });
}

void ProcessWorkerPool::pin_builds(const std::vector<int>& cores) {
  for (const auto& w : workers_)
    if (!w->dead && w->link.state() == WorkerState::Building && !pin_process_tree(w->pid, cores))
      spdlog::warn("worker {}: cannot move its build onto other cores: {}", w->pid, std::strerror(errno));
}

void ProcessWorkerPool::on_result(Worker& w, JobOutcome outcome, bool retire) {
  w.timer.cancel();
  ++w.jobs;
  JobDone done = std::move(w.done);
  w.done = nullptr;
  auto self = w.shared_from_this();
  if (retire) {
    spdlog::info("worker {} retires after {} jobs", w.pid, w.jobs);
    end_worker(w, nullptr);
    spawn();
  }
  // The outcome first, so that the dispatcher sees the finished job before the idle worker.
  if (done) done(std::move(outcome));
  if (!retire) notify_idle();
}

void ProcessWorkerPool::on_exit(Worker& w, const std::string& why, bool timed_out) {
  if (w.dead) return;
  auto state = w.link.state();
  bool busy = state == WorkerState::Building || state == WorkerState::Running;
  bool never_ready = state == WorkerState::Starting;
  Phase phase = w.link.phase();
  int pid = w.pid;
  int failed_starts = w.failed_starts;
  JobDone done = std::move(w.done);
  w.done = nullptr;
  // The job's result and the replacement wait until the worker has exited (its status names
  // the death), which the event loop learns without blocking.
  end_worker(w, [this, busy, never_ready, phase, pid, why, timed_out, failed_starts,
                 done = std::move(done)](int status) {
    std::string how = why.empty() ? describe_exit_status(status) : why;
    if (stopped_) return;
    if (busy) {
      spdlog::warn("worker {} {} while {}; replacing it", pid, timed_out ? "timed out" : how,
                   phase == Phase::Build ? "building" : "running");
      double now = std::chrono::duration<double>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
      JobOutcome o;
      o.result = death_result(phase, timed_out, pid, how, now);
      if (done) done(std::move(o));
    } else if (never_ready) {
      // A worker that cannot even start would fail again at once: retry after a pause, a
      // bounded number of times.
      start_failed(failed_starts + 1,
                   str_cat(config_.worker_path, " (pid ", pid, ") ", how, " before it was ready"));
      return;
    } else {
      spdlog::warn("worker {} {} while idle; replacing it", pid, how);
    }
    spawn();
  });
}

void ProcessWorkerPool::end_worker(Worker& w, std::function<void(int status)> on_gone) {
  w.dead = true;
  w.timer.cancel();
  boost::system::error_code ec;
  w.to.close(ec);
  w.from.close(ec);
  auto self = w.shared_from_this();
  for (auto it = workers_.begin(); it != workers_.end(); ++it)
    if (it->get() == &w) {
      workers_.erase(it);
      break;
    }
  dying_.push_back(self);
  w.on_gone = std::move(on_gone);
  // SIGKILL to the worker, its group and the groups of its compilers, without waiting.
  std::vector<int> fds;
  if (w.pid > 0 && w.child.valid()) fds = util::signal_process_tree(w.pid);
  std::error_code sec;
  if (w.group.valid()) w.group.terminate(sec);
  std::weak_ptr<Worker> weak = self;
  w.exits_pending = fds.size();
  for (int fd : fds) {
    auto sd = std::make_shared<asio::posix::stream_descriptor>(io_, fd);
    w.exit_waits.push_back(sd);
    sd->async_wait(asio::posix::stream_descriptor::wait_read,
                   [this, weak](boost::system::error_code) {
                     auto w = weak.lock();
                     if (w && w->exits_pending > 0 && --w->exits_pending == 0) reap(*w);
                   });
  }
  w.timer.expires_after(kExitWait);
  w.timer.async_wait([this, weak](boost::system::error_code ec) {
    auto w = weak.lock();
    if (ec || !w || w->reaped) return;
    spdlog::warn("worker {}: its processes had not all exited {} ms after SIGKILL", w->pid,
                 kExitWait.count());
    reap(*w);
  });
  if (fds.empty()) asio::post(io_, [this, weak] {
      if (auto w = weak.lock()) reap(*w);
    });
}

void ProcessWorkerPool::reap(Worker& w) {
  if (w.reaped) return;
  w.reaped = true;
  w.timer.cancel();
  for (auto& sd : w.exit_waits) {
    boost::system::error_code ec;
    sd->close(ec);
  }
  w.exit_waits.clear();
  auto self = w.shared_from_this();
  int status = 0;
  std::error_code sec;
  // Exited by now (or stuck past the deadline): never block on it.
  if (w.child.valid() && !w.child.running(sec)) status = w.child.native_exit_code();
  else if (w.child.valid()) w.child.detach();
  remove_worker_leftovers(config_.cache_dir, w.temp_dir, w.pid);
  for (auto it = dying_.begin(); it != dying_.end(); ++it)
    if (it->get() == &w) {
      dying_.erase(it);
      break;
    }
  auto on_gone = std::move(w.on_gone);
  w.on_gone = nullptr;
  if (on_gone) on_gone(status);
}

void ProcessWorkerPool::remove_now(Worker& w) {
  w.dead = true;
  w.reaped = true;
  w.timer.cancel();
  boost::system::error_code ec;
  w.to.close(ec);
  w.from.close(ec);
  for (auto& sd : w.exit_waits) sd->close(ec);
  w.exit_waits.clear();
  std::error_code sec;
  // SIGKILL to the worker, its group and the groups of its compilers; waits until they exit.
  if (w.pid > 0 && w.child.valid()) util::kill_process_tree(w.pid, kExitWait);
  if (w.group.valid()) w.group.terminate(sec);
  if (w.child.valid()) w.child.wait(sec);
  remove_worker_leftovers(config_.cache_dir, w.temp_dir, w.pid);
}

void ProcessWorkerPool::notify_idle() {
  if (on_idle_) on_idle_();
}

std::vector<proto::WorkerStatus> ProcessWorkerPool::status() const {
  std::vector<proto::WorkerStatus> out;
  for (const auto& w : workers_) out.push_back({w->pid, w->link.state(), w->jobs});
  return out;
}

void ProcessWorkerPool::stop() {
  if (stopped_) return;
  stopped_ = true;
  respawn_timer_.cancel();
  // Stopping may block: every worker and everything it started is gone when this returns.
  auto all = std::move(workers_);
  workers_.clear();
  for (auto& w : dying_) all.push_back(w);
  dying_.clear();
  for (auto& w : all) {
    w->done = nullptr;
    w->on_gone = nullptr;
    remove_now(*w);
  }
}

}  // namespace mrd::daemon
