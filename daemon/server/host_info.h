// What the daemon reports about the machine it measures on.
#pragma once

#include <string>

namespace mrd::daemon {

/// The "model name" of /proc/cpuinfo, or "unknown".
std::string cpu_model();
/// Online logical cores (at least 1).
unsigned core_count();

}  // namespace mrd::daemon
