// The seam between the compile cache and the system compiler: a Compiler turns a C source
// file into a shared object. The real one spawns the compiler; tests of the cache logic use a
// fake that counts invocations.
#pragma once

#include <string>
#include <vector>

namespace mrd::measure {

struct CompileRequest {
  std::string source_path;  ///< a C file
  std::string output_path;  ///< the shared object to write
  std::vector<std::string> flags;
  double timeout_seconds = 15.0;
};

struct CompileOutcome {
  enum class Status { Ok, Failed, TimedOut };
  Status status = Status::Ok;
  /// The compiler's diagnostics (trimmed) on failure, or what went wrong launching it.
  std::string message;
};

class Compiler {
 public:
  virtual ~Compiler() = default;
  /// What makes this compiler's output differ from another's (path, version, link method);
  /// part of the cache key.
  virtual std::string identity() const = 0;
  /// Never throws.
  virtual CompileOutcome compile(const CompileRequest& request) = 0;
};

}  // namespace mrd::measure
