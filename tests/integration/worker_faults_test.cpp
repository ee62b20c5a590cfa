// Fault workloads through a real daemon: with --test-faults each fault.* kind gives exactly
// its error code while the good inputs submitted around it succeed, the pool returns to its
// size, no process the workers started survives them and no temporary file is left behind.
// Without the switch every fault workload is refused with INSTANTIATION_ERROR.
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "common/proto/codec.h"
#include "common/util/proc_table.h"
#include "common/util/process_tree.h"
#include "daemon/worker/sanitizer_build.h"
#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;
using measure::MeasureErrorNo;
using measure::MeasureResult;

namespace {

const std::vector<std::string> kKinds = {"segfault",      "abort",          "infinite_loop",
                                         "runaway_alloc", "exit_mid_reply", "compiler_hang"};

MeasureErrorNo expected_code(const std::string& kind) {
  if (kind == "infinite_loop") return MeasureErrorNo::RunTimeout;
  if (kind == "compiler_hang") return MeasureErrorNo::BuildTimeout;
  return MeasureErrorNo::RuntimeDevice;
}

measure::MeasureOptions short_timeouts() {
  auto o = quick_options();
  o.build_timeout = 2;
  o.run_timeout = 2;
  return o;
}

/// The options a fault kind is sent with: the short timeouts, except for runaway_alloc,
/// whose gigabyte of page faults may take longer than 2 s on a loaded machine and must end
/// in its own error, not in RUN_TIMEOUT.
measure::MeasureOptions options_for(const std::string& kind) {
  auto o = short_timeouts();
  if (kind == "runaway_alloc") o.run_timeout = 60;
  return o;
}

/// Running (not a zombie) processes whose command line names `dir`, other than `except`.
std::vector<std::string> processes_naming(const fs::path& dir, const std::set<pid_t>& except) {
  std::vector<std::string> out;
  for (const auto& p : util::list_processes()) {
    if (p.state == 'Z' || except.count(p.pid)) continue;
    std::string cmdline = util::process_cmdline(p.pid);
    if (cmdline.find(dir.string()) != std::string::npos)
      out.push_back(std::to_string(p.pid) + ": " + cmdline);
  }
  return out;
}

/// Regular files anywhere under `dir`.
size_t files_under(const fs::path& dir) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    n += it->is_regular_file(ec);
  return n;
}

/// Requests sent together on one connection; their results, by request.
struct Batch {
  struct Entry {
    std::string label;  ///< "good" or the fault kind
    size_t inputs = 0;
    std::vector<MeasureResult> results;
    bool done = false;
  };
  std::map<uint64_t, Entry> requests;

  void add(uint64_t id, const std::string& label, size_t inputs) {
    requests[id] = Entry{label, inputs, {}, false};
  }

  /// Sends every request at once, then reads until each is done.
  void run(client::Client& c) {
    for (const auto& [id, e] : requests) {
      proto::MeasureRequest r;
      r.request_id = id;
      r.task = measure::task_to_binary(e.label == "good" ? matmul_task(16)
                                                         : function_task("fault." + e.label, {}));
      r.states.assign(e.inputs, "[]");
      r.options = options_for(e.label);
      c.send_bytes(proto::encode(r));
    }
    size_t open = requests.size();
    while (open > 0) {
      auto f = c.read_frame();
      REQUIRE(f);
      auto type = static_cast<proto::MessageType>(f->type);
      if (type == proto::MessageType::MeasureResult) {
        auto m = proto::decode<proto::MeasureResultMsg>(f->body);
        auto& e = requests.at(m.request_id);
        CHECK(m.index == e.results.size());  // submission order
        e.results.push_back(m.result);
      } else {
        REQUIRE(type == proto::MessageType::RequestDone);
        auto d = proto::decode<proto::RequestDone>(f->body);
        requests.at(d.request_id).done = true;
        --open;
      }
    }
  }
};

/// Watches, while the batch runs, for the compiler that compiler_hang starts and for the
/// temporary files it writes in its worker's private directory. inotify reports each entry
/// made under the workers' scratch root (a private directory of a worker started meanwhile
/// is watched as it appears); at each one the process table is read for a compiler writing
/// into that root. The compiler hangs, so it is still there when its files appear. No polling:
/// the thread sleeps in poll() until a file appears or stop() is called.
class CompilerWatch {
 public:
  explicit CompilerWatch(fs::path temp_root)
      : temp_root_(std::move(temp_root)),
        inotify_(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK)),
        stop_(::eventfd(0, EFD_CLOEXEC)) {
    REQUIRE(inotify_ >= 0);
    REQUIRE(stop_ >= 0);
    REQUIRE(::inotify_add_watch(inotify_, temp_root_.c_str(), kEvents) >= 0);
    for (const auto& e : fs::directory_iterator(temp_root_)) watch_dir(e.path());
    thread_ = std::thread([this] { run(); });
  }
  ~CompilerWatch() {
    stop();
    ::close(inotify_);
    ::close(stop_);
  }

  /// Ends the watch; what it saw is read after this.
  void stop() {
    if (!thread_.joinable()) return;
    uint64_t one = 1;
    REQUIRE(::write(stop_, &one, sizeof one) == sizeof one);
    thread_.join();
  }

  std::set<pid_t> compilers;  ///< the compiler driver and its children
  bool saw_temp_files = false;

 private:
  static constexpr uint32_t kEvents = IN_CREATE | IN_MOVED_TO;

  void watch_dir(const fs::path& dir) {
    std::error_code ec;
    if (fs::is_directory(dir, ec)) ::inotify_add_watch(inotify_, dir.c_str(), kEvents);
  }

  /// The compilers writing into the scratch root, and whether their files are there.
  void look() {
    auto all = util::list_processes();
    for (const auto& p : all) {
      if (p.state == 'Z') continue;
      std::string cmdline = util::process_cmdline(p.pid);
      if (cmdline.find("fault-compiler-hang.o") != std::string::npos &&
          cmdline.find(temp_root_.string()) != std::string::npos)
        compilers.insert(p.pid);
    }
    for (pid_t root : std::set<pid_t>(compilers))
      for (const auto& p : util::descendants(root, all)) compilers.insert(p.pid);
    if (!compilers.empty() && files_under(temp_root_) > 0) saw_temp_files = true;
  }

  void run() {
    alignas(inotify_event) char buf[16384];
    while (!saw_temp_files) {
      pollfd fds[2] = {{inotify_, POLLIN, 0}, {stop_, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents) return;
      ssize_t n = ::read(inotify_, buf, sizeof buf);
      for (ssize_t at = 0; at < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
        // A new worker's private directory: watched from now on, and read once for what
        // may have been made in it before the watch.
        if ((e->mask & IN_ISDIR) && e->len > 0) watch_dir(temp_root_ / e->name);
        at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
      look();
    }
  }

  fs::path temp_root_;
  int inotify_;
  int stop_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("each fault kind gives its code, good inputs around it succeed, nothing survives") {
  // A small address-space limit, so that runaway_alloc runs (it refuses a limit larger than
  // a quarter of the available memory) and its allocation fails soon.
  Daemon d(2, {"--test-faults", "--limit-as-mb", "1024"});
  const fs::path cache = d.dir() / "cache";
  const fs::path temp_root = cache / "worker-tmp";
  client::Client watcher(d.socket());
  const pid_t daemon_pid = d.pid();

  Batch batch;
  uint64_t id = 1;
  batch.add(id++, "good", 2);
  for (const auto& kind : kKinds) {
    batch.add(id++, kind, 1);
    batch.add(id++, "good", 1);
  }

  CompilerWatch watch(temp_root);
  {
    client::Client c(d.socket());
    batch.run(c);
  }
  watch.stop();

  for (const auto& [rid, e] : batch.requests) {
    INFO("request " << rid << ": " << e.label);
    CHECK(e.done);
    REQUIRE(e.results.size() == e.inputs);
    for (const auto& r : e.results) {
      INFO(r.error_msg);
      if (e.label == "good") {
        CHECK(r.error_no == MeasureErrorNo::NoError);
        continue;
      }
      CHECK(r.error_no == expected_code(e.label));
      // A sanitizer build runs its workers without an address-space limit (ASan needs
      // terabytes of it), so there, and only there, runaway_alloc refuses instead.
      if (e.label == "runaway_alloc")
        CHECK(r.error_msg.find(worker::kSanitizerBuild ? "refused" : "out of memory") !=
              std::string::npos);
      // A sanitizer build turns a SIGSEGV into an exit with a report; the code is the same.
      if (e.label == "segfault" && !worker::kSanitizerBuild)
        CHECK(r.error_msg.find("signal 11") != std::string::npos);
      if (e.label == "abort") CHECK(r.error_msg.find("signal 6") != std::string::npos);
    }
  }

  // The compiler of compiler_hang really ran, wrote temporaries, and is gone with its worker.
  REQUIRE(!watch.compilers.empty());
  CHECK(watch.saw_temp_files);
  for (pid_t p : watch.compilers) CHECK_FALSE(process_running(p));

  // The pool is back to two workers and nothing else started by the workers survives.
  auto s = watcher.status();
  CHECK(s.workers_alive == 2);
  std::set<pid_t> expected = {daemon_pid};
  for (const auto& w : s.worker_list) expected.insert(w.pid);
  auto strays = processes_naming(d.dir(), expected);
  for (const auto& p : strays) FAIL_CHECK("stray process " << p);

  // No temporary file is left: one empty private directory per live worker, no partial build.
  size_t dirs = 0;
  for (const auto& e : fs::directory_iterator(temp_root)) {
    ++dirs;
    CHECK(files_under(e.path()) == 0);
  }
  CHECK(dirs == 2);
  for (const auto& e : fs::directory_iterator(cache))
    CHECK(e.path().filename().string().rfind("tmp-", 0) != 0);

  // The daemon keeps serving.
  std::vector<MeasureResult> after;
  client::Client c(d.socket());
  c.measure(matmul_task(16), {"[]"}, short_timeouts(),
            [&](uint32_t, const MeasureResult& r) { after.push_back(r); });
  REQUIRE(after.size() == 1);
  CHECK(after[0].error_no == MeasureErrorNo::NoError);

  // At stop every worker's private directory goes too.
  CHECK(d.terminate() == 0);
  CHECK(fs::is_empty(temp_root));
}

TEST_CASE("without --test-faults every fault workload is refused and the worker untouched") {
  Daemon d(1);
  client::Client c(d.socket());
  const pid_t worker = c.status().worker_list.at(0).pid;
  for (const auto& kind : kKinds) {
    INFO(kind);
    std::vector<MeasureResult> results;
    c.measure(function_task("fault." + kind, {}), {"[]"}, short_timeouts(),
              [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
    REQUIRE(results.size() == 1);
    CHECK(results[0].error_no == MeasureErrorNo::InstantiationError);
    CHECK(results[0].error_msg.find("--test-faults") != std::string::npos);
  }
  auto s = c.status();
  REQUIRE(s.worker_list.size() == 1);
  CHECK(s.worker_list[0].pid == worker);  // no fault ran: the same worker served them all
  CHECK(processes_naming(d.dir(), {d.pid(), worker}).empty());
}

TEST_CASE("an unknown fault kind is refused with the list of kinds") {
  Daemon d(1, {"--test-faults"});
  client::Client c(d.socket());
  std::vector<MeasureResult> results;
  c.measure(function_task("fault.nonexistent", {}), {"[]"}, short_timeouts(),
            [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
  REQUIRE(results.size() == 1);
  CHECK(results[0].error_no == MeasureErrorNo::InstantiationError);
  CHECK(results[0].error_msg.find("fault.compiler_hang") != std::string::npos);
}

TEST_CASE("runaway_alloc refuses to run in a worker without an address-space limit") {
  Daemon d(1, {"--test-faults", "--limit-as-mb", "0"});
  client::Client c(d.socket());
  const pid_t worker = c.status().worker_list.at(0).pid;
  std::vector<MeasureResult> results;
  c.measure(function_task("fault.runaway_alloc", {}), {"[]"}, short_timeouts(),
            [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
  REQUIRE(results.size() == 1);
  CHECK(results[0].error_no == MeasureErrorNo::RuntimeDevice);
  CHECK(results[0].error_msg.find("no address-space limit") != std::string::npos);
  CHECK(c.status().worker_list.at(0).pid == worker);
}

TEST_CASE("runaway_alloc refuses an address-space limit too large for the machine") {
  Daemon d(1, {"--test-faults", "--limit-as-mb", "1048576"});  // 1 TiB
  client::Client c(d.socket());
  std::vector<MeasureResult> results;
  c.measure(function_task("fault.runaway_alloc", {}), {"[]"}, short_timeouts(),
            [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
  REQUIRE(results.size() == 1);
  CHECK(results[0].error_no == MeasureErrorNo::RuntimeDevice);
  // A sanitizer build has no limit at all, and says that instead.
  CHECK(results[0].error_msg.find(worker::kSanitizerBuild ? "no address-space limit"
                                                          : "more than a quarter") !=
        std::string::npos);
}

TEST_CASE("a dead worker's partial builds and temporary files are removed with it") {
  Daemon d(1);
  client::Client c(d.socket());
  const pid_t victim = c.status().worker_list.at(0).pid;
  const fs::path cache = d.dir() / "cache";
  std::vector<fs::path> temp_dirs;
  for (const auto& e : fs::directory_iterator(cache / "worker-tmp")) temp_dirs.push_back(e.path());
  REQUIRE(temp_dirs.size() == 1);
  // What a compiler and the compile cache leave when the worker is killed mid-build.
  std::ofstream(temp_dirs[0] / "ccKILLED.s") << "partial";
  const fs::path partial = cache / ("tmp-" + std::to_string(victim) + "-1-0");
  const fs::path other = cache / ("tmp-" + std::to_string(d.pid()) + "-1-0");  // not the worker's
  fs::create_directories(partial);
  fs::create_directories(other);
  std::ofstream(partial / "kernel.c") << "int f(void) {";

  REQUIRE(::kill(victim, SIGKILL) == 0);
  pid_t replacement = 0;
  while (replacement == 0 || replacement == victim) {  // until the daemon has replaced it
    auto list = c.status().worker_list;
    replacement = list.empty() ? 0 : list[0].pid;
  }
  CHECK_FALSE(fs::exists(temp_dirs[0]));
  CHECK_FALSE(fs::exists(partial));
  CHECK(fs::exists(other));
  size_t dirs = 0;
  for (const auto& e : fs::directory_iterator(cache / "worker-tmp")) {
    ++dirs;
    CHECK(files_under(e.path()) == 0);
  }
  CHECK(dirs == 1);
}

TEST_CASE("killing a worker's process tree reaches children in other process groups") {
  // Like a worker running a compiler: one child in its group, one in a group of its own (as
  // the build path starts compilers). The shell prints both pids once they are started.
  bp::ipstream out;
  bp::child shell("/bin/sh",
                  bp::args({"-c", "sleep 1000 & echo $!; setsid sleep 1000 & echo $!; wait"}),
                  bp::std_out > out);
  pid_t same_group = 0, own_group = 0;
  REQUIRE(out >> same_group >> own_group);
  auto group_of = [](pid_t pid) {
    auto p = util::read_process(pid);
    return p ? p->pgid : pid_t(-1);
  };
  while (group_of(own_group) != own_group) {  // until setsid has made its own group
    REQUIRE(process_running(own_group));
  }
  REQUIRE(group_of(same_group) != same_group);
  REQUIRE(process_running(same_group));

  util::kill_process_tree(shell.id(), std::chrono::seconds(5));
  std::error_code ec;
  shell.wait(ec);
  CHECK_FALSE(process_running(shell.id()));
  CHECK_FALSE(process_running(same_group));
  CHECK_FALSE(process_running(own_group));
}
