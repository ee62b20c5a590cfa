#include "common/util/version_text.h"

#include "measurerd/version.h"

namespace mrd {

std::string version_text(std::string_view program) {
  return std::string(program) + " " MEASURERD_VERSION " (commit " MEASURERD_GIT_COMMIT
                                ")\nbuilt with " MEASURERD_COMPILER
                                ", LLVM " MEASURERD_LLVM_VERSION;
}

}  // namespace mrd
