#include "tests/soak/leftovers.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include "common/util/proc_table.h"

namespace mrd::soak {
namespace {

namespace fs = std::filesystem;

bool refers_to(const std::string& text, const std::string& dir) {
  return text == dir || text.rfind(dir + "/", 0) == 0 || text.find(dir + "/") != std::string::npos;
}

std::vector<StrayProcess> scan(const std::string& dir) {
  std::vector<StrayProcess> out;
  const pid_t self = ::getpid();
  for (const auto& p : util::list_processes()) {
    if (p.pid == self) continue;
    std::string cmdline = util::process_cmdline(p.pid);
    std::error_code cwd_ec;
    std::string cwd =
        fs::read_symlink("/proc/" + std::to_string(p.pid) + "/cwd", cwd_ec).string();
    if (refers_to(cmdline, dir) || (!cwd_ec && refers_to(cwd, dir)))
      out.push_back({p.pid, cmdline.empty() ? "(no command line) cwd " + cwd : cmdline});
  }
  return out;
}

/// The parent of `pid`; 0 when it is gone.
pid_t parent_of(pid_t pid) {
  auto p = util::read_process(pid);
  return p ? p->ppid : 0;
}

bool descends_from(pid_t pid, pid_t ancestor) {
  for (int depth = 0; pid > 1 && depth < 64; ++depth) {
    if (pid == ancestor) return true;
    pid = parent_of(pid);
  }
  return false;
}

}  // namespace

std::vector<StrayProcess> orphaned_processes(const std::string& dir, pid_t daemon) {
  std::vector<StrayProcess> out;
  for (auto& p : scan(dir))
    if (p.pid != daemon && !descends_from(p.pid, daemon)) out.push_back(std::move(p));
  return out;
}

std::vector<StrayProcess> stray_processes(const std::string& dir, double settle_seconds) {
  auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(settle_seconds);
  for (;;) {
    auto found = scan(dir);
    if (found.empty() || std::chrono::steady_clock::now() >= give_up) return found;
    // A process killed a moment ago may still be in /proc; look again shortly.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void kill_strays(const std::vector<StrayProcess>& strays) {
  for (const auto& s : strays) ::kill(s.pid, SIGKILL);
}

std::vector<std::string> temp_files_left(const std::string& tmp_dir, const std::string& cache_dir) {
  static const std::regex finished("[0-9a-f]{64}\\.(so|o)");
  std::vector<std::string> out;
  std::error_code ec;
  auto add_tree = [&](const fs::path& p) {
    out.push_back(p.string());
    std::error_code e;
    if (!fs::is_directory(fs::symlink_status(p, e))) return;
    for (fs::recursive_directory_iterator it(p, e), end; !e && it != end; it.increment(e))
      out.push_back(it->path().string());
  };
  for (fs::directory_iterator it(tmp_dir, ec), end; !ec && it != end; it.increment(ec))
    add_tree(it->path());
  ec.clear();
  for (fs::directory_iterator it(cache_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    bool entry = fs::is_regular_file(fs::symlink_status(it->path(), e)) &&
                 std::regex_match(it->path().filename().string(), finished);
    if (entry) continue;
    if (it->path().filename() == "worker-tmp" &&
        fs::is_directory(fs::symlink_status(it->path(), e))) {
      // The workers' scratch root stays; what is inside belongs to workers that are gone.
      for (fs::directory_iterator sub(it->path(), e), send; !e && sub != send; sub.increment(e))
        add_tree(sub->path());
      continue;
    }
    add_tree(it->path());
  }
  return out;
}

}  // namespace mrd::soak
