#include "daemon/server/worker_scratch.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace mrd::daemon {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTempRoot = "worker-tmp";
constexpr const char* kPartialPrefix = "tmp-";  // the compile cache's partial build directories

/// The number before the first '-' of `name` (after `prefix`), or 0.
pid_t leading_pid(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0) return 0;
  std::string rest = name.substr(prefix.size());
  size_t dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos) return 0;
  std::string digits = rest.substr(0, dash);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) return 0;
  return static_cast<pid_t>(std::atol(digits.c_str()));
}

bool running(pid_t pid) {
  std::error_code ec;
  return fs::exists("/proc/" + std::to_string(pid), ec);
}

}  // namespace

std::string make_worker_temp_dir(const std::string& cache_dir, uint64_t serial) {
  fs::path root = fs::path(cache_dir) / kTempRoot;
  fs::create_directories(root);
  fs::permissions(root, fs::perms::owner_all, fs::perm_options::replace);
  fs::path dir = root / (std::to_string(::getpid()) + "-" + std::to_string(serial));
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
  return dir.string();
}

void remove_worker_leftovers(const std::string& cache_dir, const std::string& temp_dir, pid_t pid) {
  std::error_code ec;
  if (!temp_dir.empty()) fs::remove_all(temp_dir, ec);
  if (pid <= 0) return;
  const std::string prefix = kPartialPrefix;
  for (const auto& e : fs::directory_iterator(cache_dir, ec))
    if (leading_pid(e.path().filename().string(), prefix) == pid) {
      std::error_code ignored;
      fs::remove_all(e.path(), ignored);
    }
}

void remove_stale_leftovers(const std::string& cache_dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(cache_dir) / kTempRoot, ec)) {
    pid_t daemon = leading_pid(e.path().filename().string(), "");
    if (daemon > 0 && daemon != ::getpid() && !running(daemon)) {
      std::error_code ignored;
      fs::remove_all(e.path(), ignored);
    }
  }
  for (const auto& e : fs::directory_iterator(cache_dir, ec)) {
    pid_t worker = leading_pid(e.path().filename().string(), kPartialPrefix);
    if (worker > 0 && !running(worker)) {
      std::error_code ignored;
      fs::remove_all(e.path(), ignored);
    }
  }
}

}  // namespace mrd::daemon
