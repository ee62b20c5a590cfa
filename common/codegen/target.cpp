#include "common/codegen/target.h"

#include <sstream>

#include "common/util/error.h"

namespace mrd::codegen {

namespace {

/// Attributes of TVM's llvm and c targets that do not change the code built here.
bool is_known_inert(std::string_view key) {
  static const char* const kKeys[] = {
      "keys", "libs",        "num-cores",          "mabi",        "device",  "model",
      "tag",  "host",        "link-params",        "system-lib",  "runtime", "mfloat-abi",
      "jit",  "from_device", "target_device_type", "vector-width"};
  for (const char* k : kKeys) {
    if (key == k) return true;
  }
  return false;
}

/// An integer or boolean attribute's value as TVM's target parser reads it: no value is 1,
/// true / false (any case) are 1 / 0, else a decimal integer.
int int_value(const std::string& key, const std::string& value) {
  if (value.empty()) return 1;
  std::string lower;
  for (char c : value) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "true") return 1;
  if (lower == "false") return 0;
  size_t sign = value[0] == '-' ? 1 : 0;
  bool ok = value.size() > sign && value.size() - sign <= 9;  // fits an int
  for (size_t i = sign; ok && i < value.size(); ++i) ok = value[i] >= '0' && value[i] <= '9';
  MRD_USER_CHECK(ok, "target attribute -", key.substr(0, 64),
                 " takes an integer or true/false, not '", value.substr(0, 64), "'");
  return std::stoi(value);
}

/// Sets the fast-math flag that `key` names (TVM v0.14's -fast-math attributes); false when
/// `key` names none.
bool set_fast_math(FastMathFlags& f, const std::string& key, bool on) {
  static const std::pair<const char*, bool FastMathFlags::*> kFlags[] = {
      {"fast-math", &FastMathFlags::fast},
      {"fast-math-nnan", &FastMathFlags::nnan},
      {"fast-math-ninf", &FastMathFlags::ninf},
      {"fast-math-nsz", &FastMathFlags::nsz},
      {"fast-math-arcp", &FastMathFlags::arcp},
      {"fast-math-contract", &FastMathFlags::contract},
      {"fast-math-reassoc", &FastMathFlags::reassoc}};
  for (const auto& [name, member] : kFlags) {
    if (key == name) {
      f.*member = on;
      return true;
    }
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
    // TVM hands -cl-opt's options to LLVM's command-line parser, process-wide: options that
    // print or write files, and that would outlive the task in a served worker.
    MRD_USER_CHECK(
        key != "cl-opt",
        "target attribute -cl-opt (LLVM command-line options) is not supported: measurerd "
        "builds with LLVM's defaults, as TVM does without it");
    MRD_USER_CHECK(safe_value(value), "target attribute -", key.substr(0, 64), " has a malformed value");
    if (key == "mtriple") {
      t.mtriple = value;
    } else if (key == "mcpu") {
      t.mcpu = value;
    } else if (key == "mattr") {
      t.mattr = value;
    } else if (key == "opt-level" || key.rfind("fast-math", 0) == 0) {
      MRD_USER_CHECK(
          t.kind == TargetKind::LLVM, "target attribute -", key.substr(0, 64),
          " belongs to llvm targets (TVM's c target has none; the C backend's optimization "
          "comes from its compiler flags)");
      if (key == "opt-level") {
        t.opt_level = int_value(key, value);
      } else {
        MRD_USER_CHECK(set_fast_math(t.fast_math, key, int_value(key, value) != 0),
                       "target attribute -", key.substr(0, 64), " is not known");
      }
    } else {
      MRD_USER_CHECK(is_known_inert(key), "target attribute -", key.substr(0, 64), " is not known");
    }
  }
  return t;
}

}  // namespace mrd::codegen
