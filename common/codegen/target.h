// The target string of a task, as TVM reads it: a kind (`llvm` or `c`) and `-key=value`
// attributes. The kind chooses the backend; an `llvm` target's -mtriple, -mcpu and -mattr
// configure LLVM's target machine (without -mcpu, the host CPU and its features), its
// -opt-level the optimization level of the pipeline and of code generation, and its
// -fast-math, -fast-math-nnan, -ninf, -nsz, -arcp, -contract and -reassoc the fast-math flags
// of every floating-point instruction, as in TVM v0.14's LLVMTargetInfo. Other attributes TVM
// knows (-keys, -libs, -num-cores, ...) are accepted and do not change code generation here;
// an unknown kind, an attribute TVM's target kind does not have (-opt-level on `c`), or a
// malformed attribute is a UserError.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mrd::codegen {

enum class TargetKind { LLVM, C };

/// The LLVM fast-math flags TVM's IRBuilder puts on every floating-point instruction. TVM sets
/// none by default; -fast-math sets them all (`fast`), the others one each.
struct FastMathFlags {
  bool fast = false;
  bool nnan = false, ninf = false, nsz = false, arcp = false, contract = false, reassoc = false;
  bool operator==(const FastMathFlags& o) const {
    return fast == o.fast && nnan == o.nnan && ninf == o.ninf && nsz == o.nsz && arcp == o.arcp &&
           contract == o.contract && reassoc == o.reassoc;
  }
};

/// TVM's default -opt-level of an llvm target: LLVM's O3 pipeline, aggressive code generation.
inline constexpr int kDefaultOptLevel = 3;

struct Target {
  TargetKind kind = TargetKind::LLVM;
  std::string mtriple;  ///< empty: the host's triple
  std::string mcpu;     ///< empty: the host CPU
  std::string mattr;    ///< comma-separated +feature / -feature, as TVM's -mattr
  /// -opt-level as TVM reads it: <= 0 none, 1 less, 2 default, >= 3 aggressive (llvm only).
  int opt_level = kDefaultOptLevel;
  FastMathFlags fast_math;  ///< llvm only
  /// The string it was parsed from, trimmed.
  std::string text;
};

/// Parses a TVM target string ("llvm -keys=cpu -mcpu=znver3", "c"). An empty string means
/// "llvm".
Target parse_target(std::string_view text);

std::string_view target_kind_name(TargetKind k);

}  // namespace mrd::codegen
