#include "daemon/server/timing_caps.h"

#include "common/util/error.h"

namespace mrd::daemon {

std::string check_timing_caps(const measure::MeasureOptions& o, const TimingCaps& caps) {
  if (o.min_repeat_ms > caps.max_min_repeat_ms)
    return str_cat("min_repeat_ms ", o.min_repeat_ms, " is above this measurerd's cap of ",
                   caps.max_min_repeat_ms, " (measurerd --max-min-repeat-ms)");
  if (o.run_timeout > caps.max_run_timeout)
    return str_cat("run timeout ", o.run_timeout, " s is above this measurerd's cap of ",
                   caps.max_run_timeout, " s (measurerd --max-run-timeout)");
  uint64_t calls = uint64_t(o.repeat) * uint64_t(o.number);
  if (o.repeat > 0 && o.number > 0 && calls > caps.max_calls)
    return str_cat("repeat x number = ", calls, " is above this measurerd's cap of ",
                   caps.max_calls, " calls per candidate (measurerd --max-calls)");
  return "";
}

}  // namespace mrd::daemon
