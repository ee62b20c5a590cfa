// The seam between the compile cache and the compilers: a Compiler turns a source file (C for
// the system compiler, LLVM IR text for the LLVM backend) into a shared object. Tests of the
// cache logic use a fake that counts invocations.
#pragma once

#include <string>
#include <vector>

namespace mrd::measure {

struct CompileRequest {
  std::string source_path;  ///< the source: C, or LLVM IR text
  std::string output_path;  ///< the artifact to write (see Compiler::artifact_suffix)
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
  /// The file name the source is written to ("kernel.c", "kernel.ll").
  virtual std::string source_file_name() const { return "kernel.c"; }
  /// The suffix of what compile() writes: ".so" (a shared object, dlopen'ed) or ".o" (an
  /// object file, loaded by the JIT).
  virtual std::string artifact_suffix() const { return ".so"; }
};

}  // namespace mrd::measure
