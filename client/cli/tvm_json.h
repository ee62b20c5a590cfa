// JSON text as Python's json.dumps writes it (", " and ": " separators), the way TVM's record
// logs show transform steps.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace mrd::cli {

inline std::string tvm_json(const nlohmann::json& j) {
  std::string compact = j.dump();
  std::string out;
  out.reserve(compact.size() * 5 / 4);
  bool in_string = false, escaped = false;
  for (char c : compact) {
    out += c;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == ',' || c == ':') {
      out += ' ';
    }
  }
  return out;
}

}  // namespace mrd::cli
