#include "daemon/server/process_worker_pool.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <array>
#include <boost/process.hpp>

#include "common/proto/codec.h"
#include "common/proto/frame_decoder.h"
#include "common/util/error.h"
#include "common/util/process_tree.h"
#include "daemon/server/worker_scratch.h"
#include "daemon/worker/sanitizer_build.h"

namespace mrd::daemon {

namespace asio = boost::asio;
namespace bp = boost::process;
using measure::MeasureErrorNo;
using proto::WorkerState;

struct ProcessWorkerPool::Worker : std::enable_shared_from_this<Worker> {
  explicit Worker(asio::io_context& io) : to(io), from(io), timer(io) {}

  bp::async_pipe to;    // worker's stdin
  bp::async_pipe from;  // worker's stdout
  bp::group group;
  bp::child child;
  proto::FrameDecoder decoder;
  std::array<char, 64 * 1024> buffer;
  asio::steady_timer timer;
  WorkerState state = WorkerState::Starting;
  int pid = 0;
  uint64_t jobs = 0;
  uint64_t job_id = 0;
  Phase phase = Phase::Build;
  JobDone done;
  bool dead = false;
  std::string temp_dir;  // the worker's private TMPDIR
};

namespace {

void set_cloexec(int fd) {
  int flags = fcntl(fd, F_GETFD);
  if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return str_cat("killed by signal ", sig, " (", strsignal(sig), ")");
  }
  if (WIFEXITED(status)) return str_cat("exited with status ", WEXITSTATUS(status));
  return "ended";
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
                                   std::to_string(config_.limits.open_files)};
  if (!config_.compiler.empty()) args.insert(args.end(), {"--compiler", config_.compiler});
  if (!config_.cflags.empty()) args.insert(args.end(), {"--cflags", config_.cflags});
  if (config_.test_faults) args.push_back("--test-faults");
  return args;
}

void ProcessWorkerPool::start(std::function<void()> on_all_ready) {
  on_all_ready_ = std::move(on_all_ready);
  if (worker::kSanitizerBuild && config_.limits.address_space_mb != 0)
    spdlog::warn("sanitizer build: workers run without an address-space limit (RLIMIT_AS); "
                 "--limit-as-mb {} is not applied", config_.limits.address_space_mb);
  remove_stale_leftovers(config_.cache_dir);
  for (size_t i = 0; i < config_.size; ++i) spawn();
}

void ProcessWorkerPool::spawn() {
  if (stopped_) return;
  auto w = std::make_shared<Worker>(io_);
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
    w->child = bp::child(config_.worker_path, bp::args(args), env,
                         bp::std_in<w->to, bp::std_out> w->from, w->group);
  } catch (const std::exception& e) {
    spdlog::error("cannot start worker {}: {}; retrying in 1 s", config_.worker_path, e.what());
    remove_worker_leftovers(config_.cache_dir, w->temp_dir, 0);
    spawn_later();
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
        w->decoder.feed(std::string_view(w->buffer.data(), n));
        while (auto f = w->decoder.next()) {
          try {
            auto type = static_cast<proto::MessageType>(f->type);
            if (type == proto::MessageType::WorkerReady && w->state == WorkerState::Starting) {
              proto::decode<proto::WorkerReady>(f->body);
              on_ready(*w);
            } else if (type == proto::MessageType::JobResult &&
                       (w->state == WorkerState::Building || w->state == WorkerState::Running)) {
              auto r = proto::decode<proto::JobResult>(f->body);
              if (r.job_id != w->job_id) throw InternalError("result for another job");
              on_result(*w, JobOutcome{std::move(r.result), std::move(r.artifact)}, r.retire);
            } else {
              throw InternalError(str_cat("unexpected message type ", f->type));
            }
          } catch (const std::exception& e) {
            spdlog::error("worker {}: protocol error: {}", w->pid, e.what());
            on_exit(*w, str_cat("protocol error: ", e.what()), false);
            return;
          }
          if (w->dead) return;
        }
        if (w->decoder.failure()) {
          on_exit(*w, "protocol error: " + w->decoder.failure()->message, false);
          return;
        }
        read_from(w);
      });
}

void ProcessWorkerPool::spawn_later() {
  if (pending_respawns_++ > 0) return;  // the timer is already set
  respawn_timer_.expires_after(std::chrono::seconds(1));
  respawn_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) return;
    size_t n = pending_respawns_;
    pending_respawns_ = 0;
    for (size_t i = 0; i < n; ++i) spawn();
  });
}

void ProcessWorkerPool::on_ready(Worker& w) {
  w.state = WorkerState::Idle;
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
  for (const auto& w : workers_) n += !w->dead && w->state == WorkerState::Idle;
  return n;
}

void ProcessWorkerPool::submit(Job job, JobDone done) {
  std::shared_ptr<Worker> w;
  for (const auto& c : workers_)
    if (!c->dead && c->state == WorkerState::Idle) {
      w = c;
      break;
    }
  MRD_CHECK(w, "submit with no idle worker");
  w->job_id = next_job_id_++;
  w->phase = job.phase;
  w->state = job.phase == Phase::Build ? WorkerState::Building : WorkerState::Running;
  w->done = std::move(done);
  std::string frame;
  if (job.phase == Phase::Build) {
    proto::BuildJob b;
    b.job_id = w->job_id;
    b.task = *job.task;
    b.steps = std::move(job.steps);
    b.options = job.options;
    frame = proto::encode(b);
  } else {
    proto::RunJob r;
    r.job_id = w->job_id;
    r.task = *job.task;
    r.steps = std::move(job.steps);
    r.artifact = std::move(job.artifact);
    r.options = job.options;
    frame = proto::encode(r);
  }
  double timeout = job.phase == Phase::Build ? job.options.build_timeout : job.options.run_timeout;
  std::weak_ptr<Worker> weak = w;
  uint64_t id = w->job_id;
  w->timer.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(timeout)));
  w->timer.async_wait([this, weak, id, timeout](boost::system::error_code ec) {
    auto w = weak.lock();
    if (ec || !w || w->dead || w->job_id != id ||
        (w->state != WorkerState::Building && w->state != WorkerState::Running))
      return;
    spdlog::warn("worker {}: job {} passed its {} s timeout; killing it", w->pid, id, timeout);
    on_exit(*w, "", true);
  });
  auto data = std::make_shared<std::string>(std::move(frame));
  asio::async_write(w->to, asio::buffer(*data),
                    [this, weak, data](boost::system::error_code ec, size_t) {
                      auto w = weak.lock();
                      if (ec && w && !w->dead) on_exit(*w, "", false);
                    });
}

void ProcessWorkerPool::on_result(Worker& w, JobOutcome outcome, bool retire) {
  w.timer.cancel();
  ++w.jobs;
  w.state = WorkerState::Idle;
  JobDone done = std::move(w.done);
  w.done = nullptr;
  auto self = w.shared_from_this();
  if (retire) {
    spdlog::info("worker {} retires after {} jobs", w.pid, w.jobs);
    remove(w);
    spawn();
  }
  // The outcome first, so that the dispatcher sees the finished job before the idle worker.
  if (done) done(std::move(outcome));
  if (!retire) notify_idle();
}

void ProcessWorkerPool::on_exit(Worker& w, const std::string& why, bool timed_out) {
  if (w.dead) return;
  auto self = w.shared_from_this();
  bool busy = w.state == WorkerState::Building || w.state == WorkerState::Running;
  bool never_ready = w.state == WorkerState::Starting;
  Phase phase = w.phase;
  remove(w);  // kills the group, reaps the process
  int status = w.child.native_exit_code();
  std::string how = why.empty() ? describe_status(status) : why;
  if (stopped_) return;
  if (busy) {
    JobOutcome o;
    o.result.timestamp =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (timed_out) {
      o.result.error_no =
          phase == Phase::Build ? MeasureErrorNo::BuildTimeout : MeasureErrorNo::RunTimeout;
      o.result.error_msg =
          phase == Phase::Build ? "build timed out; worker killed" : "run timed out; worker killed";
    } else {
      o.result.error_no =
          phase == Phase::Build ? MeasureErrorNo::CompileHost : MeasureErrorNo::RuntimeDevice;
      o.result.error_msg = str_cat("worker ", w.pid, " ", how, " while ",
                                   phase == Phase::Build ? "building" : "running");
    }
    spdlog::warn("worker {} {} while {}; replacing it", w.pid, timed_out ? "timed out" : how,
                 phase == Phase::Build ? "building" : "running");
    JobDone done = std::move(w.done);
    w.done = nullptr;
    if (done) done(std::move(o));
  } else if (never_ready) {
    // A worker that cannot even start would fail again at once: retry after a pause.
    spdlog::error("worker {} {} before it was ready; retrying in 1 s", w.pid, how);
  } else {
    spdlog::warn("worker {} {} while idle; replacing it", w.pid, how);
  }
  w.done = nullptr;
  if (never_ready)
    spawn_later();
  else
    spawn();
}

void ProcessWorkerPool::remove(Worker& w) {
  w.dead = true;
  w.timer.cancel();
  boost::system::error_code ec;
  w.to.close(ec);
  w.from.close(ec);
  std::error_code sec;
  // SIGKILL to the worker, its group and the groups of its compilers; waits until they exit.
  if (w.pid > 0 && w.child.valid()) util::kill_process_tree(w.pid, std::chrono::seconds(2));
  if (w.group.valid()) w.group.terminate(sec);
  if (w.child.valid()) w.child.wait(sec);
  remove_worker_leftovers(config_.cache_dir, w.temp_dir, w.pid);
  for (auto it = workers_.begin(); it != workers_.end(); ++it)
    if (it->get() == &w) {
      workers_.erase(it);
      break;
    }
}

void ProcessWorkerPool::notify_idle() {
  if (on_idle_) on_idle_();
}

std::vector<proto::WorkerStatus> ProcessWorkerPool::status() const {
  std::vector<proto::WorkerStatus> out;
  for (const auto& w : workers_) out.push_back({w->pid, w->state, w->jobs});
  return out;
}

void ProcessWorkerPool::stop() {
  if (stopped_) return;
  stopped_ = true;
  respawn_timer_.cancel();
  while (!workers_.empty()) {
    auto w = workers_.back();
    w->done = nullptr;
    remove(*w);
  }
}

}  // namespace mrd::daemon
