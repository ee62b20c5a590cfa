#include "common/measure/kernel.h"

#include <dlfcn.h>
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "common/codegen/llvm_codegen.h"
#include "common/measure/object_loader.h"
#include "common/measure/workspace_pool.h"
#include "common/util/error.h"

namespace mrd::measure {
namespace {

using SetThreads = void (*)(int);

// The affinity libgomp gave the thread that loaded it, when it changed it.
std::mutex g_place_mu;
bool g_has_place = false;
cpu_set_t g_place;

// Loads libgomp once, for good; returns its omp_set_num_threads (null if unavailable).
SetThreads openmp_runtime() {
  static std::once_flag once;
  static SetThreads set_threads = nullptr;
  std::call_once(once, [] {
    ::setenv("OMP_PROC_BIND", "true", /*overwrite=*/0);
    cpu_set_t before, after;
    bool known = ::sched_getaffinity(0, sizeof before, &before) == 0;
    void* gomp = ::dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    if (gomp) set_threads = reinterpret_cast<SetThreads>(::dlsym(gomp, "omp_set_num_threads"));
    if (known && ::sched_getaffinity(0, sizeof after, &after) == 0 && !CPU_EQUAL(&before, &after)) {
      std::lock_guard<std::mutex> lock(g_place_mu);
      g_place = after;
      g_has_place = true;
    }
  });
  return set_threads;
}

/// Points a loaded kernel's workspace hooks (weak globals of LLVM modules, absent from C
/// ones) at the workspace pool.
template <typename Find>
void serve_workspace(Find find) {
  using Alloc = void* (*)(int64_t, int64_t);
  using Free = void (*)(void*);
  if (auto* hook = static_cast<Alloc*>(find(codegen::kWorkspaceAllocHook))) *hook = &workspace_alloc;
  if (auto* hook = static_cast<Free*>(find(codegen::kWorkspaceFreeHook))) *hook = &workspace_free;
}

// Loaded kernels alive; the workspace pool gives its memory back when the last one goes.
std::atomic<int> g_live_kernels{0};

}  // namespace

Kernel::Kernel(void* handle, Entry entry) : handle_(handle), entry_(entry) { ++g_live_kernels; }

Kernel::Kernel(std::unique_ptr<LoadedObject> object, Entry entry)
    : handle_(nullptr), object_(std::move(object)), entry_(entry) {
  ++g_live_kernels;
}

Kernel Kernel::load(const std::string& path) {
  openmp_runtime();  // resident before a kernel pulls it in
  if (path.size() > 2 && path.compare(path.size() - 2, 2, ".o") == 0) {
    std::unique_ptr<LoadedObject> object = load_object(path, "mrd_entry");
    Entry entry = reinterpret_cast<Entry>(object->entry());
    serve_workspace([&](const char* name) { return object->find(name); });
    return Kernel(std::move(object), entry);
  }
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* err = ::dlerror();
    throw std::runtime_error(str_cat("cannot load ", path, ": ", err ? err : "unknown error"));
  }
  void* sym = ::dlsym(h, "mrd_entry");
  if (!sym) {
    ::dlclose(h);
    throw std::runtime_error(str_cat(path, " has no mrd_entry"));
  }
  serve_workspace([&](const char* name) { return ::dlsym(h, name); });
  return Kernel(h, reinterpret_cast<Entry>(sym));
}

Kernel::Kernel(Kernel&& other) noexcept
    : handle_(other.handle_), object_(std::move(other.object_)), entry_(other.entry_) {
  other.handle_ = nullptr;
}

Kernel::~Kernel() {
  if (!handle_ && !object_) return;  // moved from
  if (handle_) ::dlclose(handle_);
  object_.reset();
  if (--g_live_kernels == 0) release_workspace_pool();
}

struct TimingAffinity::Saved {
  cpu_set_t set;
};

TimingAffinity::TimingAffinity() {
  auto saved = std::make_unique<Saved>();
  if (::sched_getaffinity(0, sizeof saved->set, &saved->set) == 0) saved_ = std::move(saved);
}

TimingAffinity::~TimingAffinity() {
  if (saved_) ::sched_setaffinity(0, sizeof saved_->set, &saved_->set);
}

void TimingAffinity::bind_to_openmp_place() {
  if (!saved_) return;
  std::lock_guard<std::mutex> lock(g_place_mu);
  if (!g_has_place) return;
  cpu_set_t within;
  CPU_AND(&within, &g_place, &saved_->set);
  if (CPU_EQUAL(&within, &g_place)) ::sched_setaffinity(0, sizeof g_place, &g_place);
}

int available_cores() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

int configure_openmp(int num_threads) {
  SetThreads set_threads = openmp_runtime();
  int n = num_threads > 0 ? num_threads : available_cores();
  if (set_threads) set_threads(n);
  return n;
}

}  // namespace mrd::measure
