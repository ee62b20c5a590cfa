#include "common/measure/option_ranges.h"

#include <cmath>

#include "common/util/error.h"

namespace mrd::measure {
namespace {

/// Whole numbers in full ("1000000", not "1e+06").
std::string number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  return str_cat(v);
}

}  // namespace

const OptionRange& option_range(std::string_view name) {
  for (const auto& r : kOptionRanges)
    if (r.name == name) return r;
  throw InternalError(str_cat("no range for option ", name));
}

bool in_range(const OptionRange& r, double value) {
  if (!std::isfinite(value) || value > r.max) return false;
  if (r.integer && value != std::floor(value)) return false;
  return r.min_open ? value > r.min : value >= r.min;
}

std::string range_text(const OptionRange& r) {
  return str_cat(r.min_open ? "(" : "[", number_text(r.min), ", ", number_text(r.max), "]", r.unit);
}

std::string check_option_ranges(const MeasureOptions& o) {
  auto check = [](std::string_view name, double v) -> std::string {
    const auto& r = option_range(name);
    return in_range(r, v) ? std::string() : str_cat(name, " must be in ", range_text(r));
  };
  for (auto [name, value] : {std::pair<std::string_view, double>{"number", o.number},
                             {"repeat", o.repeat},
                             {"min_repeat_ms", o.min_repeat_ms},
                             {"cooldown_interval", o.cooldown_interval},
                             {"build_timeout", o.build_timeout},
                             {"run_timeout", o.run_timeout},
                             {"skip_hopeless_factor", o.skip_hopeless_factor}}) {
    std::string bad = check(name, value);
    if (!bad.empty()) return bad;
  }
  return "";
}

}  // namespace mrd::measure
