// Test support: the workloads of tests/data/tvm-reference, read from its README (name,
// arguments and the DAG print) and from the <name>.check.json files.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/registry/workload.h"

namespace mrd::test {

struct ReferenceWorkload {
  std::string name;
  std::vector<registry::WorkloadArg> args;
  std::string dag_print;  ///< the "Compute DAG as TVM prints it" lines, each ending in '\n'
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Parses `### name(a, b, "float32")` headings and the following DAG print block.
inline std::vector<ReferenceWorkload> reference_workloads() {
  std::istringstream in(read_text(std::string(MEASURERD_TVM_REFERENCE_DIR) + "/README.md"));
  std::vector<ReferenceWorkload> out;
  std::string line;
  bool want_dag = false, in_dag = false;
  while (std::getline(in, line)) {
    size_t open = line.find('(');
    if (line.rfind("### ", 0) == 0 && open != std::string::npos && line.find(' ', 4) > open) {
      ReferenceWorkload w;
      w.name = line.substr(4, open - 4);
      std::string args = line.substr(open + 1, line.rfind(')') - open - 1);
      std::istringstream as(args);
      for (std::string a; std::getline(as, a, ',');) {
        a.erase(0, a.find_first_not_of(' '));
        if (a.front() == '"') {
          w.args.emplace_back(a.substr(1, a.size() - 2));
        } else {
          w.args.emplace_back(static_cast<int64_t>(std::stoll(a)));
        }
      }
      out.push_back(w);
      want_dag = false;
    } else if (line == "Compute DAG as TVM prints it:") {
      want_dag = true;
    } else if (want_dag && line == "```") {
      if (in_dag) {
        in_dag = want_dag = false;
      } else {
        in_dag = true;
      }
    } else if (in_dag) {
      out.back().dag_print += line + "\n";
    }
  }
  return out;
}

inline nlohmann::json reference_check(const std::string& name) {
  return nlohmann::json::parse(
      read_text(std::string(MEASURERD_TVM_REFERENCE_DIR) + "/" + name + ".check.json"));
}

}  // namespace mrd::test
