#include "common/record/record.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <istream>
#include <nlohmann/json.hpp>

#include "common/registry/registry.h"
#include "common/util/error.h"

namespace mrd::record {

using nlohmann::json;

namespace {

std::string number(double v) {
  if (!std::isfinite(v)) return "1e+10";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// Whole seconds, as TVM writes them; a value no integer holds (never read from a record,
/// whose timestamps are checked) is written as 0.
std::string timestamp_text(double t) {
  if (!std::isfinite(t) || std::fabs(t) >= 0x1p53) return "0";
  return std::to_string(static_cast<long long>(std::floor(t)));
}

/// JSON as TVM writes it: ", " between elements, ": " after keys.
void dump(const json& j, std::string& out) {
  if (j.is_array()) {
    out += '[';
    for (size_t i = 0; i < j.size(); ++i) {
      if (i) out += ", ";
      dump(j[i], out);
    }
    out += ']';
  } else if (j.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      out += json(it.key()).dump() + ": ";
      dump(it.value(), out);
    }
    out += '}';
  } else if (j.is_number_float()) {
    out += number(j.get<double>());
  } else {
    out += j.dump();
  }
}

const json& at(const json& j, size_t i, const char* what) {
  MRD_USER_CHECK(j.is_array() && i < j.size(), "record: missing ", what);
  return j[i];
}

int get_int(const json& j, const char* what) {
  MRD_USER_CHECK(j.is_number_integer(), "record: ", what, " must be an integer, got ", j.dump());
  return j.get<int>();
}

}  // namespace

std::string to_json_line(const Record& r) {
  std::string out = "{\"i\": [[";
  out += json(r.workload_key).dump() + ", " + json(r.target).dump() + ", [";
  out += std::to_string(r.hardware.num_cores) + ", " +
         std::to_string(r.hardware.vector_unit_bytes) + ", " +
         std::to_string(r.hardware.cache_line_bytes) + ", 0, 0, 0, 0, 0], ";
  out += json(r.target_host).dump() + ", " + std::to_string(r.layout_rewrite_option) + ", ";
  dump(json(r.task_input_names), out);
  out += "], [[], ";
  json steps = r.steps.empty() ? json::array() : json::parse(r.steps);
  MRD_USER_CHECK(steps.is_array(), "record: steps must be a JSON array");
  dump(steps, out);
  out += "]], \"r\": [[";
  std::vector<double> costs = r.result.costs;
  if (costs.empty() && r.result.error_no != measure::MeasureErrorNo::NoError)
    costs.push_back(kErrorCost);
  for (size_t i = 0; i < costs.size(); ++i) out += (i ? ", " : "") + number(costs[i]);
  out += "], " + std::to_string(static_cast<int>(r.result.error_no)) + ", " +
         number(r.result.all_cost) + ", " +
         timestamp_text(r.result.timestamp) +
         "], \"v\": " + json(r.version).dump() + "}";
  return out;
}

Record from_json_line(std::string_view line) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception& e) {
    throw UserError(str_cat("record: not JSON: ", e.what()));
  }
  MRD_USER_CHECK(j.is_object() && j.contains("i") && j.contains("r"),
                 "record: expected an object with \"i\" and \"r\"");
  Record r;
  const json& in = j["i"];
  const json& task = at(in, 0, "task");
  const json& state = at(in, 1, "state");
  const json& key = at(task, 0, "workload key");
  MRD_USER_CHECK(key.is_string(), "record: workload key must be a string");
  r.workload_key = key.get<std::string>();
  const json& target = at(task, 1, "target");
  MRD_USER_CHECK(target.is_string(), "record: target must be a string");
  r.target = target.get<std::string>();
  if (task.size() > 2) {
    const json& hw = task[2];
    MRD_USER_CHECK(hw.is_array() && hw.size() >= 3, "record: hardware params must be a list");
    r.hardware.num_cores = get_int(hw[0], "num_cores");
    r.hardware.vector_unit_bytes = get_int(hw[1], "vector_unit_bytes");
    r.hardware.cache_line_bytes = get_int(hw[2], "cache_line_bytes");
  }
  if (task.size() > 3 && task[3].is_string()) r.target_host = task[3].get<std::string>();
  if (task.size() > 4) r.layout_rewrite_option = get_int(task[4], "layout_rewrite_option");
  if (task.size() > 5 && task[5].is_array())
    for (const auto& n : task[5])
      if (n.is_string()) r.task_input_names.push_back(n.get<std::string>());
  const json& steps = at(state, 1, "steps");
  MRD_USER_CHECK(steps.is_array(), "record: steps must be a list");
  r.steps = steps.dump();

  const json& res = j["r"];
  const json& costs = at(res, 0, "costs");
  MRD_USER_CHECK(costs.is_array(), "record: costs must be a list");
  for (const auto& c : costs) {
    MRD_USER_CHECK(c.is_number(), "record: a cost must be a number");
    r.result.costs.push_back(c.get<double>());
  }
  int e = get_int(at(res, 1, "error_no"), "error_no");
  MRD_USER_CHECK(e >= 0 && e <= static_cast<int>(measure::MeasureErrorNo::UnknownError),
                 "record: unknown error_no ", e);
  r.result.error_no = static_cast<measure::MeasureErrorNo>(e);
  const json& all = at(res, 2, "all_cost");
  MRD_USER_CHECK(all.is_number(), "record: all_cost must be a number");
  r.result.all_cost = all.get<double>();
  const json& ts = at(res, 3, "timestamp");
  MRD_USER_CHECK(ts.is_number(), "record: timestamp must be a number");
  r.result.timestamp = ts.get<double>();
  // Seconds since the epoch, written back as an integer: it must fit one exactly.
  MRD_USER_CHECK(std::isfinite(r.result.timestamp) && std::fabs(r.result.timestamp) < 0x1p53,
                 "record: timestamp out of range");
  if (j.contains("v") && j["v"].is_string()) r.version = j["v"].get<std::string>();
  return r;
}

std::vector<Record> read_records(std::istream& in) {
  std::vector<Record> out;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      out.push_back(from_json_line(line));
    } catch (const UserError& e) {
      throw UserError(str_cat("line ", n, ": ", e.what()));
    }
  }
  return out;
}

void append_record(const std::string& path, const Record& r) {
  std::ofstream out(path, std::ios::app);
  MRD_USER_CHECK(out, "cannot open ", path, " for appending");
  out << to_json_line(r) << '\n';
  MRD_USER_CHECK(out.good(), "cannot write to ", path);
}

Record make_record(const measure::Task& task, const std::string& steps,
                   const measure::MeasureResult& result) {
  Record r;
  r.workload_key = registry::workload_key(task.workload);
  r.target = task.target;
  r.hardware = task.hardware;
  r.layout_rewrite_option = task.layout_rewrite_option;
  r.steps = steps;
  r.result = result;
  return r;
}

measure::Task task_of(const Record& r) {
  json key;
  try {
    key = json::parse(r.workload_key);
  } catch (const json::exception&) {
    throw UserError(str_cat("workload key ", r.workload_key, " is not JSON"));
  }
  MRD_USER_CHECK(key.is_array() && !key.empty() && key[0].is_string(), "workload key ",
                 r.workload_key, " is not a function workload's");
  registry::FunctionWorkload f;
  f.name = key[0].get<std::string>();
  for (size_t i = 1; i < key.size(); ++i) {
    const json& a = key[i];
    if (a.is_number_integer())
      f.args.emplace_back(a.get<int64_t>());
    else if (a.is_number())
      f.args.emplace_back(a.get<double>());
    else if (a.is_string())
      f.args.emplace_back(a.get<std::string>());
    else
      throw UserError(
          str_cat("workload key ", r.workload_key, ": unsupported argument ", a.dump()));
  }
  measure::Task t;
  t.workload = std::move(f);
  t.target = r.target;
  t.hardware = r.hardware;
  MRD_USER_CHECK(r.layout_rewrite_option >= 0 && r.layout_rewrite_option <= 2, "layout_rewrite_option ",
                 r.layout_rewrite_option, " is not one of TVM's: 0, 1 or 2");
  t.layout_rewrite_option = r.layout_rewrite_option;
  return t;
}

}  // namespace mrd::record
