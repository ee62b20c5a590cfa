// The LLVM target machine of an `llvm` target, made once per (triple, cpu, features, level) in
// a process and shared by code generation (data layout, function attributes) and object
// emission. Its options are TVM's: FP operation fusion allowed (fma contraction), no NaNs
// assumed, the code generation level of the target's -opt-level (aggressive by default),
// position-independent code. Included only by the files that use LLVM.
#pragma once

#include <llvm/Target/TargetMachine.h>

#include <string>

#include "common/codegen/target.h"

namespace mrd::codegen {

struct ResolvedLlvmTarget {
  llvm::TargetMachine* machine;  ///< owned by the process-wide cache
  std::string triple, cpu, features;
  /// The target's -opt-level as TVM maps it, 0 to 3: the level of the optimization pipeline
  /// (PassManagerBuilder::OptLevel) and of code generation (CodeGenOpt::None ... Aggressive).
  int opt_level = 3;
};

/// Throws UserError for a triple whose code cannot run on this machine (another architecture,
/// system, ABI or object format) or that LLVM does not know, and for a -mcpu LLVM does not
/// know for the triple (as TVM).
ResolvedLlvmTarget llvm_target_machine(const Target& target);

}  // namespace mrd::codegen
