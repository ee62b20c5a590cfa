// A compiled candidate loaded into this process: dlopen of a shared object (the C backend), or
// an object file through the JIT (the LLVM backend, object_loader.h), and its `mrd_entry`; plus the process-wide OpenMP setup (runtime kept loaded for good, threads bound
// to cores, thread count per run).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace mrd::measure {

class LoadedObject;

class Kernel {
 public:
  /// Loads `path` (a ".o" through the JIT, anything else with dlopen); throws
  /// std::runtime_error with the loader's message.
  static Kernel load(const std::string& path);
  Kernel(Kernel&& other) noexcept;
  Kernel& operator=(Kernel&&) = delete;
  Kernel(const Kernel&) = delete;
  ~Kernel();

  /// Runs the kernel; returns its status (0 = ok).
  int32_t operator()(void* const* args) const { return entry_(args); }

 private:
  using Entry = int32_t (*)(void* const*);
  Kernel(void* handle, Entry entry);
  Kernel(std::unique_ptr<LoadedObject> object, Entry entry);
  void* handle_;
  std::unique_ptr<LoadedObject> object_;
  Entry entry_;
};

/// Loads the OpenMP runtime once (never unloaded: unloading it under a parked thread pool
/// crashes), with OMP_PROC_BIND=true unless the environment says otherwise, and sets the
/// number of threads of the calling thread's parallel regions. `num_threads` <= 0 means every
/// core this process may run on. Returns the thread count in force.
int configure_openmp(int num_threads);

/// Cores this process may run on (its CPU affinity mask).
int available_cores();

/// The calling thread's CPU affinity for one timing. libgomp binds the thread that loads it
/// to its first place (OMP_PROC_BIND=true) and never lets go, so a worker that has timed
/// once would build on that one core for the rest of its life. This keeps the binding for the
/// timing only: it saves the thread's affinity, bind_to_openmp_place() applies libgomp's
/// place (when it lies within the saved affinity, which a pinned worker's may not), and the
/// destructor puts the saved affinity back.
class TimingAffinity {
 public:
  TimingAffinity();
  ~TimingAffinity();
  TimingAffinity(const TimingAffinity&) = delete;
  TimingAffinity& operator=(const TimingAffinity&) = delete;
  /// Call after configure_openmp().
  void bind_to_openmp_place();

 private:
  struct Saved;
  std::unique_ptr<Saved> saved_;
};

}  // namespace mrd::measure
