// Links one object file into a shared object with `ld -shared` directly (no compiler
// driver), against the OpenMP runtime (libgomp), libm, libc and libgcc that the system
// compiler would use. Both backends link through it: the C backend after `cc -c`, the LLVM
// backend after emitting its object in process.
#pragma once

#include <string>

#include "common/measure/compiler.h"

namespace mrd::measure {

class SharedObjectLinker {
 public:
  /// Asks `compiler` (a program name or path) where libgomp and libgcc are, once.
  explicit SharedObjectLinker(const std::string& compiler = "cc");

  /// False when ld or the libraries could not be found (then link() fails).
  bool available() const { return !ld_path_.empty(); }
  std::string identity() const;

  /// Never throws.
  CompileOutcome link(const std::string& object_path, const std::string& output_path, bool openmp,
                      double timeout_seconds) const;

 private:
  std::string ld_path_;
  std::string libgomp_path_;
  std::string libgcc_path_;
};

}  // namespace mrd::measure
