// The arguments of a kernel lowered under layout_rewrite_option 2: each layout-free input is
// passed in the layout the candidate's schedule gave it (lower/rewrite_layout.h), as TVM's
// Relay integration passes weights it re-laid out before the network runs. The task's
// arguments keep the workload's layouts (the reference check and the next candidate use
// them); this holds a re-laid-out copy of each rewritten input and the pointer list that
// passes the copies in their place.
#pragma once

#include <vector>

#include "common/lower/rewrite_layout.h"
#include "common/measure/host_args.h"

namespace mrd::measure {

class PreTransformedArgs {
 public:
  /// Copies of the inputs of `args` that `layouts` name, each re-laid out. Throws
  /// std::runtime_error when a copy cannot be allocated or a layout does not cover its input.
  PreTransformedArgs(const HostArgs& args, const std::vector<lower::PreTransformedInput>& layouts);

  /// The kernel's arguments: those of `args`, the rewritten inputs replaced by their copies.
  void* const* pointers() const { return pointers_.data(); }
  /// Evicts the copies from the CPU caches (with HostArgs::flush_inputs, TVM's cache flush).
  void flush() const;

 private:
  struct Copy {
    ArgumentBuffer data;
    uint64_t bytes;
  };
  std::vector<Copy> copies_;
  std::vector<void*> pointers_;
};

}  // namespace mrd::measure
