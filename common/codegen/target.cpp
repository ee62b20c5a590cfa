#include "common/codegen/target.h"

#include <sstream>

#include "common/util/error.h"

namespace mrd::codegen {

namespace {

/// Attributes of TVM's llvm and c targets that do not change the code built here.
bool is_known_inert(std::string_view key) {
  static const char* const kKeys[] = {"keys",      "libs",      "num-cores", "mabi",     "device",
                                      "model",     "tag",       "host",      "opt-level", "fast-math",
                                      "link-params", "system-lib", "runtime", "mfloat-abi", "jit",
                                      "from_device", "cl-opt", "vector-width"};
  for (const char* k : kKeys) {
    if (key == k) return true;
  }
  return false;
}

bool safe_value(std::string_view v) {
  for (char c : v) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '_' || c == '.' || c == ',' || c == '+';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string_view target_kind_name(TargetKind k) { return k == TargetKind::LLVM ? "llvm" : "c"; }

Target parse_target(std::string_view text) {
  Target t;
  std::istringstream in{std::string(text)};
  std::string word;
  std::vector<std::string> words;
  while (in >> word) words.push_back(word);
  if (words.empty()) words.push_back("llvm");
  for (size_t i = 0; i < words.size(); ++i) t.text += (i ? " " : "") + words[i];
  const std::string& kind = words[0];
  if (kind == "llvm") {
    t.kind = TargetKind::LLVM;
  } else if (kind == "c") {
    t.kind = TargetKind::C;
  } else {
    throw UserError(str_cat("target kind '", kind.substr(0, 64), "' is not supported: use llvm or c"));
  }
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    MRD_USER_CHECK(w.size() > 1 && w[0] == '-', "target attribute '", w.substr(0, 64), "' does not start with -");
    size_t eq = w.find('=');
    std::string key = w.substr(1, eq == std::string::npos ? std::string::npos : eq - 1);
    std::string value = eq == std::string::npos ? "" : w.substr(eq + 1);
    MRD_USER_CHECK(safe_value(value), "target attribute -", key.substr(0, 64), " has a malformed value");
    if (key == "mtriple") {
      t.mtriple = value;
    } else if (key == "mcpu") {
      t.mcpu = value;
    } else if (key == "mattr") {
      t.mattr = value;
    } else {
      MRD_USER_CHECK(is_known_inert(key), "target attribute -", key.substr(0, 64), " is not known");
    }
  }
  return t;
}

}  // namespace mrd::codegen
