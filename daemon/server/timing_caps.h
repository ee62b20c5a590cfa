// The operator's caps on what one candidate may ask of the timing: under the exclusive policy
// a run holds the machine's only timing slot, so one request must not hold it for long. The
// protocol's own ranges are wider; these are the daemon's defaults, raised with measurerd's
// flags.
#pragma once

#include <cstdint>
#include <string>

#include "common/measure/measure_types.h"

namespace mrd::daemon {

struct TimingCaps {
  double max_min_repeat_ms = 10000;  ///< --max-min-repeat-ms
  double max_run_timeout = 60;       ///< seconds, --max-run-timeout
  uint64_t max_calls = 1000000;      ///< repeat x number, --max-calls
};

/// Why `o` asks for more than `caps` allow, naming the flag that raises the cap; empty when
/// it does not.
std::string check_timing_caps(const measure::MeasureOptions& o, const TimingCaps& caps);

}  // namespace mrd::daemon
