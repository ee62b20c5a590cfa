#include "common/measure/measure_types.h"

namespace mrd::measure {

std::string_view error_name(MeasureErrorNo e) {
  switch (e) {
    case MeasureErrorNo::NoError: return "NO_ERROR";
    case MeasureErrorNo::InstantiationError: return "INSTANTIATION_ERROR";
    case MeasureErrorNo::CompileHost: return "COMPILE_HOST";
    case MeasureErrorNo::CompileDevice: return "COMPILE_DEVICE";
    case MeasureErrorNo::RuntimeDevice: return "RUNTIME_DEVICE";
    case MeasureErrorNo::WrongAnswer: return "WRONG_ANSWER";
    case MeasureErrorNo::BuildTimeout: return "BUILD_TIMEOUT";
    case MeasureErrorNo::RunTimeout: return "RUN_TIMEOUT";
    case MeasureErrorNo::UnknownError: return "UNKNOWN_ERROR";
  }
  return "UNKNOWN_ERROR";
}

std::string_view timing_policy_name(TimingPolicy p) {
  switch (p) {
    case TimingPolicy::Exclusive: return "exclusive";
    case TimingPolicy::Shared: return "shared";
    case TimingPolicy::Pinned: return "pinned";
  }
  return "exclusive";
}

}  // namespace mrd::measure
