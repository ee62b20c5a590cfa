#include "daemon/worker/serve.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "common/measure/build_cache.h"
#include "common/measure/compiler_warm_up.h"
#include "common/measure/task.h"
#include "common/proto/codec.h"
#include "common/proto/frame_decoder.h"
#include "daemon/worker/faults.h"
#include "daemon/worker/sanitizer_build.h"
#include "daemon/worker/task_cache.h"

namespace mrd::worker {
namespace {

using measure::MeasureErrorNo;
using measure::MeasureResult;

bool write_all(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

void set_limit(int resource, uint64_t value, const char* name) {
  if (value == 0) return;
  rlimit rl{value, value};
  if (::setrlimit(resource, &rl) != 0)
    std::cerr << "measurerd-worker: cannot set " << name << ": " << std::strerror(errno) << "\n";
}

double cpu_seconds_used() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

MeasureResult failure(MeasureErrorNo e, std::string msg) {
  MeasureResult r;
  r.error_no = e;
  r.error_msg = std::move(msg);
  r.timestamp = now_seconds();
  return r;
}

/// Answers a job whose task is neither in its frame nor kept.
bool send_task_missing(int out_fd, uint64_t job_id, const proto::TaskDigest& digest) {
  proto::TaskMissing m;
  m.job_id = job_id;
  m.digest = digest;
  return write_all(out_fd, proto::encode(m));
}

FaultContext fault_context(const ServeOptions& options, int out_fd, uint64_t job_id) {
  FaultContext c;
  c.enabled = options.test_faults;
  c.out_fd = out_fd;
  c.job_id = job_id;
  c.build = &options.build;
  c.temp_dir = options.temp_dir;
  return c;
}

/// Makes `dir` (mode 0700) and empties it: what an earlier worker's killed compiler left.
bool prepare_temp_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || ::chmod(dir.c_str(), 0700) != 0) return false;
  std::vector<std::filesystem::path> leftovers;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) leftovers.push_back(e.path());
  for (const auto& p : leftovers) std::filesystem::remove_all(p, ec);
  return !ec;
}

int g_out_fd = -1;
std::atomic<uint64_t> g_current_job{0};  // read by the run watchdog's thread

}  // namespace

int serve(int in_fd, int out_fd, const ServeOptions& options) {
  g_out_fd = out_fd;
  // A kernel call stuck past the run timeout cannot be taken back: report and end, as a
  // retiring worker, so that the daemon replaces it instead of handing it the next job.
  measure::set_stuck_run_handler([](const MeasureResult& r) {
    proto::JobResult jr;
    jr.job_id = g_current_job;
    jr.result = r;
    jr.retire = true;
    write_all(g_out_fd, proto::encode(jr));
    ::_exit(0);
  });

  // A ready worker is a warm one: its first job's compile is not the process's first.
  measure::warm_up_llvm("llvm");

  proto::WorkerReady ready;
  ready.pid = getpid();
  if (!write_all(out_fd, proto::encode(ready))) return 1;

  TaskCache tasks(options.task_cache_mb << 20);
  uint64_t cpu_limit = options.limit_cpu_seconds;
  proto::FrameDecoder decoder(1u << 30);  // the daemon is trusted; its own limit applies
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(in_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return 0;
    if (n < 0) return 1;
    decoder.feed(std::string_view(buf, static_cast<size_t>(n)));
    if (decoder.failure()) {
      std::cerr << "measurerd-worker: " << decoder.failure()->message << "\n";
      return 2;
    }
    while (auto f = decoder.next()) {
      proto::JobResult out;
      auto type = static_cast<proto::MessageType>(f->type);
      try {
        if (type == proto::MessageType::BuildJob) {
          auto job = proto::decode<proto::BuildJob>(f->body);
          out.job_id = g_current_job = job.job_id;
          if (!tasks.check(job.task)) {
            if (!send_task_missing(out_fd, job.job_id, job.task.digest)) return 1;
            continue;
          }
          try {
            auto kept = tasks.get(job.task);
            const auto& task = *kept;
            if (is_fault_task(task)) {
              out.result = fault_build(task, fault_context(options, out_fd, job.job_id));
            } else {
              auto built = measure::build_candidate(task, job.steps, job.options, options.build);
              out.result = std::move(built.result);
              out.artifact = std::move(built.artifact);
            }
          } catch (const std::exception& e) {
            out.result = failure(MeasureErrorNo::InstantiationError, e.what());
          }
        } else if (type == proto::MessageType::RunJob) {
          auto job = proto::decode<proto::RunJob>(f->body);
          out.job_id = g_current_job = job.job_id;
          if (!tasks.check(job.task)) {
            if (!send_task_missing(out_fd, job.job_id, job.task.digest)) return 1;
            continue;
          }
          try {
            auto kept = tasks.get(job.task);
            const auto& task = *kept;
            out.result = is_fault_task(task)
                             ? fault_run(task, fault_context(options, out_fd, job.job_id))
                             : measure::run_candidate(task, job.steps, job.artifact, job.options, nullptr,
                                                      job.best_cost);
          } catch (const std::exception& e) {
            out.result = failure(MeasureErrorNo::RuntimeDevice, e.what());
          }
        } else {
          std::cerr << "measurerd-worker: unexpected message type " << f->type << "\n";
          return 2;
        }
      } catch (const proto::ProtocolError& e) {
        std::cerr << "measurerd-worker: bad job frame: " << e.what() << "\n";
        return 2;
      }
      out.retire = cpu_limit > 0 && cpu_seconds_used() > cpu_limit / 2.0;
      if (!write_all(out_fd, proto::encode(out))) return 1;
      if (out.retire) return 0;
    }
  }
}

int serve_main(int argc, char** argv) {
  // Die with the daemon; if it is already gone, stop now.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 0;

  CLI::App app{
      "measurerd-worker --serve: serves build and run jobs from measurerd on "
      "stdin/stdout.\nExit codes: 0 stdin closed, 1 internal failure, 2 bad usage or "
      "protocol error."};
  ServeOptions o;
  std::string cflags;
  bool serve_flag = false;
  app.add_flag("--serve", serve_flag, "serve jobs on stdin/stdout (measurerd starts workers so)");
  app.add_option("--cache-dir", o.build.cache_dir, "compile cache directory");
  app.add_option("--cc,--compiler", o.build.compiler, "C compiler");
  app.add_option("--cflags", cflags, "compiler flags replacing the default");
  app.add_option("--limit-as-mb", o.limit_as_mb, "address-space limit in MiB (0: unchanged)");
  app.add_option("--limit-cpu-seconds", o.limit_cpu_seconds, "CPU-time limit (0: unchanged)");
  app.add_option("--limit-open-files", o.limit_open_files, "open-file limit (0: unchanged)");
  app.add_option("--task-cache-mb", o.task_cache_mb,
                 "MiB of task bytes kept decoded, besides at most 16 tasks (least recently used "
                 "dropped first; the one in use is always kept)")
      ->capture_default_str();
  app.add_option("--temp-dir", o.temp_dir,
                 "private temporary directory (the compiler's TMPDIR), emptied at start");
  app.add_flag(kFaultSwitch, o.test_faults,
               "testing only: accept fault.* workloads, which crash, hang or exhaust memory on "
               "purpose (without it they are refused with INSTANTIATION_ERROR)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (!cflags.empty()) {
    std::istringstream in(cflags);
    o.build.flags.clear();
    for (std::string f; in >> f;) o.build.flags.push_back(f);
  }
  if (o.build.cache_dir.empty()) o.build.cache_dir = measure::default_cache_dir();
  if (!o.temp_dir.empty()) {
    if (!prepare_temp_dir(o.temp_dir)) {
      std::cerr << "measurerd-worker: cannot prepare the temporary directory " << o.temp_dir
                << "\n";
      return 1;
    }
    ::setenv("TMPDIR", o.temp_dir.c_str(), 1);
  }

  // Descriptors inherited by accident are closed; the frame streams move off 0 and 1 so that
  // nothing a compiler or a kernel prints can corrupt them.
  ::close_range(3, ~0u, 0);
  int in_fd = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  int out_fd = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (in_fd < 0 || out_fd < 0) return 1;
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull >= 0) {
    ::dup2(devnull, 0);
    ::close(devnull);
  }
  ::dup2(2, 1);

  struct rlimit no_core {
    0, 0
  };
  ::setrlimit(RLIMIT_CORE, &no_core);
  // ASan's shadow memory needs terabytes of address space: no RLIMIT_AS in such a build
  // (the daemon says so in its log).
  if (!kSanitizerBuild) set_limit(RLIMIT_AS, o.limit_as_mb << 20, "the address-space limit");
  set_limit(RLIMIT_CPU, o.limit_cpu_seconds, "the CPU-time limit");
  set_limit(RLIMIT_NOFILE, o.limit_open_files, "the open-file limit");
  ::signal(SIGPIPE, SIG_IGN);
  try {
    return serve(in_fd, out_fd, o);
  } catch (const std::exception& e) {
    std::cerr << "measurerd-worker: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace mrd::worker
