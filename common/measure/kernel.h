// A compiled candidate loaded into this process: dlopen of the shared object and its
// `mrd_entry`, plus the process-wide OpenMP setup (runtime kept loaded for good, threads bound
// to cores, thread count per run).
#pragma once

#include <cstdint>
#include <string>

namespace mrd::measure {

class Kernel {
 public:
  /// Loads `path`; throws std::runtime_error with dlerror()'s text.
  static Kernel load(const std::string& path);
  Kernel(Kernel&& other) noexcept;
  Kernel& operator=(Kernel&&) = delete;
  Kernel(const Kernel&) = delete;
  ~Kernel();

  /// Runs the kernel; returns its status (0 = ok).
  int32_t operator()(void* const* args) const { return entry_(args); }

 private:
  using Entry = int32_t (*)(void* const*);
  Kernel(void* handle, Entry entry) : handle_(handle), entry_(entry) {}
  void* handle_;
  Entry entry_;
};

/// Loads the OpenMP runtime once (never unloaded: unloading it under a parked thread pool
/// crashes), with OMP_PROC_BIND=true unless the environment says otherwise, and sets the
/// number of threads of the calling thread's parallel regions. `num_threads` <= 0 means every
/// core this process may run on. Returns the thread count in force.
int configure_openmp(int num_threads);

/// Cores this process may run on (its CPU affinity mask).
int available_cores();

}  // namespace mrd::measure
