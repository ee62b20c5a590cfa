// The one table of the ranges a measurement option may take, in the protocol and in task
// files alike: the daemon's check of a request, the task-file parser and the documentation
// (a unit test compares the docs' tables with it) all read it. The daemon's operator caps on
// timing are narrower and live with the daemon.
#pragma once

#include <string>
#include <string_view>

#include "common/measure/measure_types.h"

namespace mrd::measure {

struct OptionRange {
  std::string_view name;  ///< the option's name in task files and records
  double min;
  bool min_open;  ///< the minimum itself is excluded: (min, max]
  double max;
  bool integer;
  std::string_view unit;  ///< "" or " s"
};

inline constexpr OptionRange kOptionRanges[] = {
    {"number", 1, false, 1000000, true, ""},
    {"repeat", 1, false, 1000, true, ""},
    {"min_repeat_ms", 0, false, 600000, true, ""},
    {"cooldown_interval", 0, false, 60, false, " s"},
    {"build_timeout", 0, true, 3600, false, " s"},
    {"run_timeout", 0, true, 3600, false, " s"},
    {"skip_hopeless_factor", 1, false, 1000000, false, ""},
};

/// The range of option `name`; throws InternalError for a name not in the table.
const OptionRange& option_range(std::string_view name);
bool in_range(const OptionRange& r, double value);
/// "[1, 1000]", "(0, 3600] s": how messages and the docs write the range.
std::string range_text(const OptionRange& r);
/// "repeat must be in [1, 1000]" for the first option of `o` out of its range; empty when all
/// are in range.
std::string check_option_ranges(const MeasureOptions& o);

}  // namespace mrd::measure
