// Bounds on what a DAG archive may ask the loader to build. Every bound is checked before the
// memory it guards is allocated, so a hostile archive fails with a DecodeError instead of
// exhausting memory, time or stack.
#pragma once

#include <cstdint>

namespace mrd::serialize {

struct Limits {
  /// Size of the whole archive (binary bytes or JSON text).
  uint64_t max_input_bytes = 64ull << 20;
  /// Nodes in one archive; also bounds the summed size of all compute bodies counted as trees
  /// (a shared sub-expression counted once per use), which is what tree-walking passes visit.
  uint64_t max_nodes = 1u << 20;
  /// Longest path of references from a node down to a leaf, both counted. A tensor read
  /// refers to the op it reads and a compute to its body, so this bounds how deep anything
  /// that follows reads into bodies (destructors, inlining) can recurse.
  uint32_t max_expr_depth = 512;
  /// Dimensions of a tensor; also bounds the reduction axes of a Reduce.
  uint32_t max_rank = 8;
  uint64_t max_tensor_elements = 1ull << 31;
  uint64_t max_tensor_bytes = 4ull << 30;
  /// Bytes of a name or tag.
  uint32_t max_name_length = 256;
};

}  // namespace mrd::serialize
