// Loads an object file emitted by the LLVM backend into this process with LLVM's ORC JIT
// (LLJIT): its relocations are resolved in memory against the symbols of the process (libm,
// libc, the resident OpenMP runtime), so no linker runs between the build and the run.
// Included only by kernel.cpp.
#pragma once

#include <memory>
#include <string>

namespace mrd::measure {

/// Keeps a loaded object's code alive.
class LoadedObject {
 public:
  virtual ~LoadedObject() = default;
  virtual void* entry() const = 0;
  /// The address of a symbol the object defines, or nullptr.
  virtual void* find(const char* name) const = 0;
};

/// Throws std::runtime_error with LLVM's message.
std::unique_ptr<LoadedObject> load_object(const std::string& path, const char* entry_name);

}  // namespace mrd::measure
