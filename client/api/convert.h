// Between the public types of include/measurerd and the library's own: the same fields, so
// the public headers stay free of the compiler and the protocol.
#pragma once

#include "common/measure/measure_types.h"
#include "common/measure/task.h"
#include "measurerd/task.h"
#include "measurerd/types.h"

namespace measurerd {

struct Task::Impl {
  mrd::measure::Task task;
  std::string workload_key;
  HardwareParams hardware;
  double flop_count = 0;
};

/// The task's Impl, with its key and flop count worked out. Throws InvalidInput.
Task make_task(mrd::measure::Task task);

mrd::measure::MeasureOptions to_internal(const MeasureOptions& o);
MeasureOptions from_internal(const mrd::measure::MeasureOptions& o);
mrd::measure::MeasureResult to_internal(const MeasureResult& r);
MeasureResult from_internal(const mrd::measure::MeasureResult& r);
mrd::measure::HardwareParams to_internal(const HardwareParams& h);
HardwareParams from_internal(const mrd::measure::HardwareParams& h);

/// Runs `f`, turning the library's user errors into InvalidInput.
template <typename F>
auto as_public(F&& f) -> decltype(f());

}  // namespace measurerd

#include "common/util/error.h"

namespace measurerd {

template <typename F>
auto as_public(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const mrd::UserError& e) {
    throw InvalidInput(e.what());
  }
}

}  // namespace measurerd
