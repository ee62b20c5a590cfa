#include "common/proto/task_digest.h"

#include "common/util/sha256.h"

namespace mrd::proto {

TaskDigest task_digest(std::string_view bytes) {
  TaskDigest d;
  d.size = bytes.size();
  d.sha256 = sha256(bytes);
  return d;
}

std::string TaskDigest::short_hex() const {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < 8; ++i) {
    s += digits[sha256[i] >> 4];
    s += digits[sha256[i] & 15];
  }
  return s;
}

}  // namespace mrd::proto
