// A measurement task, as auto_scheduler's SearchTask: the workload, the target string and the
// hardware parameters. It crosses to workers as bytes.
//
// Binary layout (little endian): "MRDT", version u8 (2), target (u32 length + bytes, at most
// kMaxTargetBytes), num_cores i32, vector_unit_bytes i32, cache_line_bytes i32,
// layout_rewrite_option u8 (0, 1 or 2; absent in version 1, which means 0), workload (u64 length
// + registry::workload_to_binary bytes). Nothing may follow.
#pragma once

#include <string>
#include <string_view>

#include "common/registry/workload.h"
#include "common/serialize/limits.h"

namespace mrd::measure {

/// TVM's HardwareParams (CPU part). num_cores 0 = every core this process may use.
struct HardwareParams {
  int num_cores = 0;
  int vector_unit_bytes = 64;
  int cache_line_bytes = 64;
};

struct Task {
  registry::Workload workload;
  std::string target = "llvm -keys=cpu";
  HardwareParams hardware;
  /// TVM's LayoutRewriteOption: 0 none, 1 insert a layout transform stage for layout-free
  /// placeholders (TVM's default for llvm targets, and what its records say).
  int layout_rewrite_option = 1;
};

inline constexpr size_t kMaxTargetBytes = 4096;
/// Bounds on hardware parameters accepted from bytes or files.
inline constexpr int kMaxCores = 4096;

std::string task_to_binary(const Task& task);
/// Throws serialize::DecodeError for anything but a well-formed task within `limits`.
Task task_from_binary(std::string_view bytes, const serialize::Limits& limits = {});

}  // namespace mrd::measure
