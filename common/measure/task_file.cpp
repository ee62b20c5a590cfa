#include "common/measure/task_file.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "common/measure/option_ranges.h"
#include "common/registry/workload_codec.h"
#include "common/serialize/decode_error.h"
#include "common/util/error.h"

namespace mrd::measure {
namespace {

using nlohmann::json;

void reject_unknown(const json& obj, const std::set<std::string>& known, const std::string& where) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (!known.count(it.key())) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw UserError(str_cat("task file: unknown field \"", it.key(), "\" in ", where, " (known: ", list, ")"));
    }
  }
}

int get_int(const json& obj, const char* key, int lo, int hi, const std::string& where) {
  const json& v = obj.at(key);
  MRD_USER_CHECK(v.is_number_integer(), "task file: ", where, ".", key, " must be an integer, got ", v.dump());
  int64_t x = v.get<int64_t>();
  MRD_USER_CHECK(x >= lo && x <= hi, "task file: ", where, ".", key, " must be in [", lo, ", ", hi, "], got ", x);
  return static_cast<int>(x);
}

bool get_bool(const json& obj, const char* key, const std::string& where) {
  const json& v = obj.at(key);
  MRD_USER_CHECK(v.is_boolean(), "task file: ", where, ".", key, " must be true or false, got ", v.dump());
  return v.get<bool>();
}

MeasureOptions parse_options(const json& o) {
  MRD_USER_CHECK(o.is_object(), "task file: \"options\" must be an object");
  reject_unknown(o, {"number", "repeat", "min_repeat_ms", "cooldown_interval", "enable_cpu_cache_flush",
                     "build_timeout", "run_timeout", "check_correctness", "skip_hopeless",
                     "skip_hopeless_factor"},
                 "\"options\"");
  MeasureOptions m;
  const std::string w = "options";
  auto int_option = [&](const char* key, int& out) {
    if (!o.contains(key)) return;
    const auto& r = option_range(key);
    out = get_int(o, key, static_cast<int>(r.min), static_cast<int>(r.max), w);
  };
  auto real_option = [&](const char* key, double& out) {
    if (!o.contains(key)) return;
    const auto& r = option_range(key);
    const json& v = o.at(key);
    MRD_USER_CHECK(v.is_number(), "task file: ", w, ".", key, " must be a number", r.unit.empty() ? "" : " of seconds",
                   ", got ", v.dump());
    double x = v.get<double>();
    MRD_USER_CHECK(in_range(r, x), "task file: ", w, ".", key, " must be in ", range_text(r),
                   ", got ", x);
    out = x;
  };
  int_option("number", m.number);
  int_option("repeat", m.repeat);
  int_option("min_repeat_ms", m.min_repeat_ms);
  real_option("cooldown_interval", m.cooldown_interval);
  if (o.contains("enable_cpu_cache_flush")) m.enable_cpu_cache_flush = get_bool(o, "enable_cpu_cache_flush", w);
  real_option("build_timeout", m.build_timeout);
  real_option("run_timeout", m.run_timeout);
  if (o.contains("check_correctness")) m.check_correctness = get_bool(o, "check_correctness", w);
  if (o.contains("skip_hopeless")) m.skip_hopeless = get_bool(o, "skip_hopeless", w);
  real_option("skip_hopeless_factor", m.skip_hopeless_factor);
  return m;
}

HardwareParams parse_hardware(const json& h) {
  MRD_USER_CHECK(h.is_object(), "task file: \"hardware\" must be an object");
  reject_unknown(h, {"num_cores", "vector_unit_bytes", "cache_line_bytes"}, "\"hardware\"");
  HardwareParams p;
  if (h.contains("num_cores")) p.num_cores = get_int(h, "num_cores", 0, kMaxCores, "hardware");
  if (h.contains("vector_unit_bytes")) p.vector_unit_bytes = get_int(h, "vector_unit_bytes", 0, 1 << 16, "hardware");
  if (h.contains("cache_line_bytes")) p.cache_line_bytes = get_int(h, "cache_line_bytes", 0, 1 << 16, "hardware");
  return p;
}

// A state is a step list `[[...], ...]`, or TVM's record form `[[], [steps...]]`.
std::string parse_state(const json& s, size_t i) {
  MRD_USER_CHECK(s.is_array(), "task file: states[", i, "] must be an array of steps, got ", s.dump().substr(0, 80));
  if (s.size() == 2 && s[0].is_array() && s[0].empty() && s[1].is_array()) return s[1].dump();
  for (size_t k = 0; k < s.size(); ++k) {
    MRD_USER_CHECK(s[k].is_array() && !s[k].empty() && s[k][0].is_string(), "task file: states[", i, "][", k,
                   "] must be a step like [\"SP\", 2, 0, 512, [16], 1], got ", s[k].dump().substr(0, 80));
  }
  return s.dump();
}

}  // namespace

TaskFile parse_task_file(std::string_view json_text) {
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e999
    throw UserError(str_cat("task file: not valid JSON: ", e.what()));
  }
  MRD_USER_CHECK(root.is_object(), "task file: the top level must be an object");
  reject_unknown(root, {"workload", "target", "hardware", "layout_rewrite_option", "options", "states"}, "the task");
  MRD_USER_CHECK(root.contains("workload"), "task file: missing \"workload\" ({\"function\": ..., \"args\": [...]} or {\"dag\": ...})");
  MRD_USER_CHECK(root.contains("states"), "task file: missing \"states\" (a list of step lists; [] is the default schedule)");
  TaskFile tf;
  try {
    const json& w = root.at("workload");
    MRD_USER_CHECK(w.is_object(), "task file: \"workload\" must be an object");
    reject_unknown(w, {"function", "args", "dag", "key"}, "\"workload\"");
    tf.task.workload = registry::workload_from_json(w);
    if (root.contains("target")) {
      MRD_USER_CHECK(root["target"].is_string(), "task file: \"target\" must be a string");
      tf.task.target = root["target"].get<std::string>();
      MRD_USER_CHECK(tf.task.target.size() <= kMaxTargetBytes, "task file: \"target\" is too long");
    }
    if (root.contains("hardware")) tf.task.hardware = parse_hardware(root["hardware"]);
    if (root.contains("layout_rewrite_option")) {
      tf.task.layout_rewrite_option = get_int(root, "layout_rewrite_option", 0, 2, "the task");
    }
    if (root.contains("options")) tf.options = parse_options(root["options"]);
    const json& states = root.at("states");
    MRD_USER_CHECK(states.is_array(), "task file: \"states\" must be a list of step lists");
    MRD_USER_CHECK(states.size() <= kMaxTaskFileStates, "task file: more than ", kMaxTaskFileStates, " states");
    for (size_t i = 0; i < states.size(); ++i) tf.states.push_back(parse_state(states[i], i));
  } catch (const serialize::DecodeError& e) {
    throw UserError(str_cat("task file: bad \"workload\": ", e.what()));
  } catch (const json::exception& e) {
    throw UserError(str_cat("task file: ", e.what()));
  }
  return tf;
}

std::string read_task_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  MRD_USER_CHECK(in, "cannot open task file ", path);
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    MRD_USER_CHECK(text.size() <= kMaxTaskFileBytes, "task file ", path, " is larger than ", kMaxTaskFileBytes,
                   " bytes");
  }
  return text;
}

}  // namespace mrd::measure
