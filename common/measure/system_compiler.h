// The real Compiler: runs the system C compiler as a child process (Boost.Process, exec'ed,
// stderr captured, killed when it passes its timeout). When the flags ask for a shared object
// and the linker can be found, it compiles with `-c` and links with `ld -shared` directly,
// which skips the compiler driver's slower link step; otherwise the driver does both.
#pragma once

#include <string>

#include "common/measure/compiler.h"
#include "common/measure/shared_object_linker.h"

namespace mrd::measure {

class SystemCompiler : public Compiler {
 public:
  /// `compiler` is a program name looked up in PATH, or a path. Resolves the compiler, its
  /// version line and the direct-link inputs once.
  explicit SystemCompiler(std::string compiler = "cc");

  std::string identity() const override;
  CompileOutcome compile(const CompileRequest& request) override;

  /// True when builds link with `ld` directly.
  bool links_directly() const { return linker_.available(); }

 private:
  std::string name_;
  std::string path_;     ///< empty when the compiler was not found
  std::string version_;  ///< first line of `--version`
  SharedObjectLinker linker_;
};

/// The path of `program` (a name looked up in PATH, or a path), empty when not found.
std::string resolve_program(const std::string& program);

/// Runs `program` with `args`, capturing stdout and stderr together; kills it after
/// `timeout_seconds`. Never throws.
struct ProcessOutcome {
  bool launched = false;
  bool timed_out = false;
  int exit_code = -1;
  std::string output;
};
ProcessOutcome run_process(const std::string& program, const std::vector<std::string>& args,
                           double timeout_seconds);

}  // namespace mrd::measure
