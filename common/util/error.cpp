#include "common/util/error.h"

namespace mrd {

void throw_internal(const char* file, int line, const std::string& what) {
  const char* base = file;
  for (const char* p = file; *p; ++p) {
    if (*p == '/') base = p + 1;
  }
  throw InternalError(str_cat("internal error at ", base, ":", line, ": ", what));
}

}  // namespace mrd
