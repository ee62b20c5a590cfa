// The LLVM backend's Compiler: in this process, the module text is parsed and verified, run
// through the optimization pipeline TVM v0.14 runs for LLVM 14 (the legacy PassManagerBuilder
// at O3 with the function inliner and the loop and SLP vectorizers, the target's own
// adjustments), emitted as an object for the task's target machine and linked into a shared
// object (SharedObjectLinker). One instance serves one target; the cache key of its builds is
// the module text with identity(): LLVM's version, the triple, CPU, features and options.
#pragma once

#include <string>

#include "common/codegen/target.h"
#include "common/measure/compiler.h"
#include "common/measure/shared_object_linker.h"

namespace mrd::measure {

class LlvmCompiler : public Compiler {
 public:
  /// Throws UserError when LLVM cannot build for the target.
  explicit LlvmCompiler(const codegen::Target& target);

  std::string identity() const override;
  CompileOutcome compile(const CompileRequest& request) override;
  std::string source_file_name() const override { return "kernel.ll"; }

 private:
  codegen::Target target_;
  std::string identity_;
  SharedObjectLinker linker_;
};

}  // namespace mrd::measure
