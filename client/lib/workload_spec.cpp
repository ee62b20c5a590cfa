#include "client/lib/workload_spec.h"

#include <cstdlib>

#include "common/registry/registry.h"
#include "common/util/error.h"

namespace mrd::cli {
namespace {

registry::WorkloadArg parse_arg(const std::string& text) {
  MRD_USER_CHECK(!text.empty(), "empty workload argument");
  const char* begin = text.c_str();
  char* end = nullptr;
  long long i = std::strtoll(begin, &end, 10);
  if (end == begin + text.size()) return static_cast<int64_t>(i);
  double d = std::strtod(begin, &end);
  if (end == begin + text.size()) return d;
  return text;
}

}  // namespace

registry::FunctionWorkload parse_workload_spec(const std::string& spec) {
  registry::FunctionWorkload w;
  size_t colon = spec.find(':');
  w.name = spec.substr(0, colon);
  MRD_USER_CHECK(!w.name.empty(), "workload '", spec, "': expected NAME:ARG,ARG,...");
  if (colon == std::string::npos) return w;
  std::string rest = spec.substr(colon + 1);
  size_t start = 0;
  for (;;) {
    size_t comma = rest.find(',', start);
    w.args.push_back(parse_arg(rest.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return w;
}

dag::ComputeDAG workload_dag(const registry::Workload& w) {
  return dag::ComputeDAG(registry::Registry::global().instantiate(w));
}

}  // namespace mrd::cli
