// The LLVM backend's Compiler: in this process, the module text is parsed and verified, run
// through the optimization pipeline TVM v0.14 runs for LLVM 14 (the legacy PassManagerBuilder
// at O3 with the function inliner and the loop and SLP vectorizers, the target's own
// adjustments) and emitted as an object for the task's target machine, which Kernel::load
// loads with the JIT (or, on request, linked into a shared object by SharedObjectLinker). One
// instance serves one target; the target machine is made once per process (its cache) and the
// LLVM context is reused across candidates (one per thread, renewed every 256 modules). The
// cache key of its builds is
// the module text with identity(): LLVM's version, the triple, CPU, features and options.
#pragma once

#include <string>

#include "common/codegen/target.h"
#include "common/measure/compiler.h"
#include "common/measure/shared_object_linker.h"

namespace mrd::measure {

class LlvmCompiler : public Compiler {
 public:
  /// Throws UserError when LLVM cannot build for the target. By default a build leaves an
  /// object file that Kernel::load hands to the JIT (measured faster: no linker process,
  /// ~20 ms less per candidate); `link_shared` links a shared object with ld instead, for
  /// kernels that leave this process.
  explicit LlvmCompiler(const codegen::Target& target, bool link_shared = false);

  std::string identity() const override;
  CompileOutcome compile(const CompileRequest& request) override;
  std::string source_file_name() const override { return "kernel.ll"; }
  std::string artifact_suffix() const override { return link_shared_ ? ".so" : ".o"; }

 private:
  codegen::Target target_;
  bool link_shared_;  ///< link with ld into a shared object instead of leaving an object for the JIT
  std::string identity_;
  SharedObjectLinker linker_;
};

}  // namespace mrd::measure
