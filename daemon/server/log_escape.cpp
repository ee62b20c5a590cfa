#include "daemon/server/log_escape.h"

#include <algorithm>

namespace mrd::daemon {

std::string log_quoted(std::string_view text, size_t max_bytes) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  size_t n = std::min(text.size(), max_bytes);
  for (size_t i = 0; i < n; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          out += "\\x";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += char(c);
        }
    }
  }
  out += '"';
  if (text.size() > n) out += "...";
  return out;
}

}  // namespace mrd::daemon
