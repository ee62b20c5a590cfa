// What `--version` prints for each program: version, git commit, compiler and LLVM version.
#pragma once

#include <string>
#include <string_view>

namespace mrd {

/// "PROGRAM 0.1.0 (commit abc123)\nbuilt with GNU 12.2.0, LLVM 14.0.6".
std::string version_text(std::string_view program);

}  // namespace mrd
