// The arguments of the last task run, kept for its next candidate: every state of a task has
// the same tensors (shapes, dtypes, seeds), so its inputs are filled once rather than for each
// candidate. A candidate takes the arguments (outputs reset to the sentinel, so nothing of an
// earlier candidate's output survives) and puts them back after its run; arguments whose
// inputs a kernel changed are dropped, and a different task frees them before its own are
// allocated (one task's arguments are held at a time).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "common/dag/compute_dag.h"
#include "common/measure/host_args.h"

namespace mrd::measure {

class ArgumentCache {
 public:
  /// The kept arguments when they belong to `task_key`, outputs reset; else arguments made
  /// fresh for `dag` (throws as HostArgs does). Until they are put back, another take() makes
  /// fresh ones.
  std::unique_ptr<HostArgs> take(const std::string& task_key, const dag::ComputeDAG& dag);
  /// Keeps `args` for the next candidate of `task_key`, unless their inputs changed.
  void put_back(const std::string& task_key, std::unique_ptr<HostArgs> args);

 private:
  std::mutex mu_;
  std::string key_;
  std::unique_ptr<HostArgs> kept_;
};

}  // namespace mrd::measure
