#include "daemon/worker/faults.h"

#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <boost/process/search_path.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <variant>
#include <vector>

#include "common/proto/codec.h"
#include "common/util/error.h"
#include "daemon/worker/sanitizer_build.h"

extern char** environ;

namespace mrd::worker {
namespace {

using measure::MeasureErrorNo;
using measure::MeasureResult;

struct KindName {
  FaultKind kind;
  const char* name;
};
constexpr std::array<KindName, 6> kKinds = {{{FaultKind::Segfault, "segfault"},
                                             {FaultKind::Abort, "abort"},
                                             {FaultKind::InfiniteLoop, "infinite_loop"},
                                             {FaultKind::RunawayAlloc, "runaway_alloc"},
                                             {FaultKind::ExitMidReply, "exit_mid_reply"},
                                             {FaultKind::CompilerHang, "compiler_hang"}}};

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

MeasureResult result(MeasureErrorNo e, std::string msg) {
  MeasureResult r;
  r.error_no = e;
  r.error_msg = std::move(msg);
  r.timestamp = now_seconds();
  return r;
}

const std::string& workload_name(const measure::Task& task) {
  return std::get<registry::FunctionWorkload>(task.workload).name;
}

std::string known_kinds() {
  std::string s;
  for (const auto& k : kKinds) s += str_cat(s.empty() ? "" : ", ", kFaultPrefix, k.name);
  return s;
}

/// The refusal or the kind of a fault job; nullopt in `kind` means `refusal` is the answer.
struct Admission {
  std::optional<FaultKind> kind;
  MeasureResult refusal;
};

Admission admit(const measure::Task& task, const FaultContext& context) {
  const std::string& name = workload_name(task);
  if (!context.enabled)
    return {std::nullopt,
            result(MeasureErrorNo::InstantiationError,
                   str_cat("fault workload ", name, " refused: this worker was not started with ",
                           kFaultSwitch, " (measurerd ", kFaultSwitch, "), a testing switch"))};
  auto kind = fault_kind(name);
  if (!kind)
    return {std::nullopt,
            result(MeasureErrorNo::InstantiationError,
                   str_cat("unknown fault workload ", name, "; known: ", known_kinds()))};
  if (!std::get<registry::FunctionWorkload>(task.workload).args.empty())
    return {std::nullopt, result(MeasureErrorNo::InstantiationError,
                                 str_cat("fault workload ", name, " takes no arguments"))};
  return {kind, {}};
}

bool write_all(int fd, const char* data, size_t size) {
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::write(fd, data + off, size - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void segfault() {
  // Both volatile: the compiler can neither see that the pointer is null nor drop the store.
  volatile int* volatile target = nullptr;
  *target = 1;
  std::abort();  // not reached
}

[[noreturn]] void infinite_loop() {
  volatile uint64_t spins = 0;
  for (;;) spins = spins + 1;
}

[[noreturn]] void exit_mid_reply(const FaultContext& context) {
  proto::JobResult jr;
  jr.job_id = context.job_id;
  jr.result.costs = {1.0};
  jr.result.error_msg = "this frame is never finished";
  jr.result.timestamp = now_seconds();
  std::string frame = proto::encode(jr);
  write_all(context.out_fd, frame.data(), frame.size() / 2);
  ::_exit(3);
}

/// MemAvailable from /proc/meminfo in bytes; 0 when unknown.
uint64_t memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

MeasureResult runaway_alloc() {
  rlimit rl{};
  ::getrlimit(RLIMIT_AS, &rl);
  if (rl.rlim_cur == RLIM_INFINITY)
    return result(MeasureErrorNo::RuntimeDevice,
                  str_cat("runaway_alloc refused: this worker has no address-space limit "
                          "(RLIMIT_AS)",
                          kSanitizerBuild ? " (a sanitizer build runs without one)" : "",
                          ", so only the machine's memory would stop the allocation"));
  uint64_t limit = rl.rlim_cur;
  uint64_t available = memory_available();
  // Start only when four times the limit is available: even a few workers doing this at once
  // leave memory to the rest of the machine.
  if (available == 0 || limit > available / 4)
    return result(MeasureErrorNo::RuntimeDevice,
                  str_cat("runaway_alloc refused: the address-space limit (", limit >> 20,
                          " MiB) is more than a quarter of the memory available (",
                          available >> 20, " MiB); start measurerd with a smaller --limit-as-mb"));
  constexpr size_t kChunk = 16u << 20;
  constexpr size_t kPage = 4096;
  std::vector<char*> chunks;
  chunks.reserve(limit / kChunk + 1);  // no reallocation while memory runs out
  for (;;) {
    char* p = static_cast<char*>(std::malloc(kChunk));
    if (!p) break;
    volatile char* touch = p;
    for (size_t i = 0; i < kChunk; i += kPage) touch[i] = static_cast<char>(i >> 12);
    chunks.push_back(p);
    if (chunks.size() == chunks.capacity()) break;  // cannot happen under the limit
  }
  uint64_t touched = chunks.size() * kChunk;
  for (char* p : chunks) std::free(p);
  ::malloc_trim(0);  // give the memory back now: this worker goes on serving
  return result(MeasureErrorNo::RuntimeDevice,
                str_cat("out of memory: allocation failed after touching ", touched >> 20,
                        " MiB (address-space limit ", limit >> 20, " MiB)"));
}

/// Starts the compiler on the read end of a pipe, keeps the write end open and waits for it.
/// The compiler stays in this process's group, so the daemon's kill of the group ends it.
MeasureResult compiler_hang(const FaultContext& context) {
  const measure::BuildConfig& build = *context.build;
  std::string compiler = build.compiler;
  if (compiler.find('/') == std::string::npos)
    compiler = boost::process::search_path(compiler).string();
  if (compiler.empty())
    return result(MeasureErrorNo::CompileHost, str_cat("compiler not found: ", build.compiler));
  std::string dir = context.temp_dir;
  if (dir.empty()) {
    const char* t = std::getenv("TMPDIR");
    dir = t && *t ? t : "/tmp";
  }
  std::string output = dir + "/fault-compiler-hang.o";
  std::vector<std::string> args = {compiler};
  for (const std::string& f : build.flags)
    if (f != "-shared") args.push_back(f);
  args.insert(args.end(), {"-x", "c", "-c", "-o", output, "-"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return result(MeasureErrorNo::CompileHost, str_cat("pipe: ", std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, compiler.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[0]);
  if (rc != 0) {
    ::close(fds[1]);
    return result(MeasureErrorNo::CompileHost,
                  str_cat("cannot start ", compiler, ": ", std::strerror(rc)));
  }
  // The start of a source file; the rest never comes and the pipe is never closed.
  const char partial[] = "int fault_compiler_hang(void) {\n";
  write_all(fds[1], partial, sizeof partial - 1);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(fds[1]);
  return result(MeasureErrorNo::CompileHost,
                "compiler_hang: the compiler ended although its source was never closed");
}

}  // namespace

bool is_fault_task(const measure::Task& task) {
  const auto* f = std::get_if<registry::FunctionWorkload>(&task.workload);
  return f && f->name.rfind(kFaultPrefix, 0) == 0;
}

std::optional<FaultKind> fault_kind(const std::string& workload_name) {
  if (workload_name.rfind(kFaultPrefix, 0) != 0) return std::nullopt;
  std::string kind = workload_name.substr(std::strlen(kFaultPrefix));
  for (const auto& k : kKinds)
    if (kind == k.name) return k.kind;
  return std::nullopt;
}

MeasureResult fault_build(const measure::Task& task, const FaultContext& context) {
  Admission a = admit(task, context);
  if (!a.kind) return a.refusal;
  if (*a.kind == FaultKind::CompilerHang) return compiler_hang(context);
  return result(MeasureErrorNo::NoError, "");  // run-phase faults: nothing to compile
}

MeasureResult fault_run(const measure::Task& task, const FaultContext& context) {
  Admission a = admit(task, context);
  if (!a.kind) return a.refusal;
  switch (*a.kind) {
    case FaultKind::Segfault:
      segfault();
    case FaultKind::Abort:
      std::abort();
    case FaultKind::InfiniteLoop:
      infinite_loop();
    case FaultKind::RunawayAlloc:
      return runaway_alloc();
    case FaultKind::ExitMidReply:
      exit_mid_reply(context);
    case FaultKind::CompilerHang:
      break;
  }
  return result(MeasureErrorNo::RuntimeDevice,
                "compiler_hang fails in its build; it has nothing to run");
}

}  // namespace mrd::worker
