// The device key of this machine: which job stream its measurements belong to. Machines with
// the same CPU model, ISA features and core count get the same key, so their timings compare;
// `--device-key` chooses another (as TVM's tracker keys).
#pragma once

#include <string>

namespace mrd::broker {

/// "<cpu-model>-<cores>c-<8 hex digits of the ISA feature flags>", e.g.
/// "intel-xeon-platinum-8375c-cpu-2.90ghz-8c-1a2b3c4d": lowercase, [a-z0-9.-] only.
std::string local_device_key();

}  // namespace mrd::broker
