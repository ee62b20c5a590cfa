#include "common/proto/task_digest.h"

#include <openssl/evp.h>

#include "common/util/error.h"

namespace mrd::proto {

TaskDigest task_digest(std::string_view bytes) {
  TaskDigest d;
  d.size = bytes.size();
  unsigned int n = 0;
  MRD_CHECK(EVP_Digest(bytes.data(), bytes.size(), d.sha256.data(), &n, EVP_sha256(), nullptr) == 1 &&
                n == d.sha256.size(),
            "SHA-256 failed");
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
