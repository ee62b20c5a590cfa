// The target string of a task, as TVM reads it: a kind (`llvm` or `c`) and `-key=value`
// attributes. The kind chooses the backend; an `llvm` target's -mtriple, -mcpu and -mattr
// configure LLVM's target machine (without -mcpu, the host CPU and its features). Other
// attributes TVM knows (-keys, -libs, -num-cores, ...) are accepted and do not change code
// generation here; an unknown kind or a malformed attribute is a UserError.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mrd::codegen {

enum class TargetKind { LLVM, C };

struct Target {
  TargetKind kind = TargetKind::LLVM;
  std::string mtriple;  ///< empty: the host's triple
  std::string mcpu;     ///< empty: the host CPU
  std::string mattr;    ///< comma-separated +feature / -feature, as TVM's -mattr
  /// The string it was parsed from, trimmed.
  std::string text;
};

/// Parses a TVM target string ("llvm -keys=cpu -mcpu=znver3", "c"). An empty string means
/// "llvm".
Target parse_target(std::string_view text);

std::string_view target_kind_name(TargetKind k);

}  // namespace mrd::codegen
