// The arguments of a kernel call: one 64-byte aligned buffer per workload tensor, inputs
// filled with the interpreter's deterministic values (so the reference check sees the same
// data; the interpreter's copies are made only for a check), outputs pre-filled with a
// sentinel so an element the kernel never writes is caught. The same arguments serve the next
// candidate of the task (argument_cache.h) after reset_outputs(), as long as
// inputs_unchanged().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/dag/compute_dag.h"
#include "common/interp/reference_interpreter.h"

namespace mrd::measure {

/// Largest total argument size a run allocates.
inline constexpr uint64_t kMaxArgumentBytes = 16ull << 30;

/// A 64-byte aligned argument buffer, freed with std::free.
struct FreeArgument {
  void operator()(void* p) const;
};
using ArgumentBuffer = std::unique_ptr<void, FreeArgument>;

/// `bytes` (rounded up to 64) for argument `pos`. Throws std::runtime_error when the
/// allocation fails.
ArgumentBuffer allocate_argument(uint64_t bytes, size_t pos);

class HostArgs {
 public:
  /// Throws std::runtime_error when the arguments are too large or cannot be allocated.
  explicit HostArgs(const dag::ComputeDAG& dag);

  void* const* pointers() const { return pointers_.data(); }
  /// One argument per workload tensor.
  size_t size() const { return pointers_.size(); }
  /// The inputs as the interpreter takes them (placeholders among the tensors, in order),
  /// made on first use: only a correctness check needs them, and only then does the
  /// interpreter's size limit apply (UserError for a tensor beyond it).
  const std::vector<interp::HostTensor>& inputs() const;
  /// Indices (into the tensor list) of the outputs and of the inputs.
  const std::vector<size_t>& output_positions() const { return outputs_; }
  const std::vector<size_t>& input_positions() const { return input_positions_; }
  /// Element i of argument `pos`, as a double.
  double value(size_t pos, int64_t i) const;
  /// Adds `delta` to element i of argument `pos` (test-only corruption).
  void perturb(size_t pos, int64_t i, double delta);
  /// Evicts every input from the CPU caches (TVM's cache flush).
  void flush_inputs() const;
  int64_t elements(size_t pos) const { return elements_[pos]; }
  uint64_t bytes(size_t pos) const { return bytes_[pos]; }
  ir::DType dtype(size_t pos) const { return dtypes_[pos]; }
  /// Fills every output with the sentinel again (NaN for floats, 0x5a bytes otherwise).
  void reset_outputs();
  /// Whether the inputs still hold the values they were filled with (a digest of their
  /// bytes against the one taken at the fill: a kernel that writes into an input is caught).
  bool inputs_unchanged() const;

 private:
  std::vector<ArgumentBuffer> buffers_;
  std::vector<void*> pointers_;
  std::vector<ir::DType> dtypes_;
  std::vector<int64_t> elements_;
  std::vector<uint64_t> bytes_;
  std::vector<size_t> outputs_, input_positions_;
  std::vector<ir::Tensor> input_tensors_;
  mutable std::optional<std::vector<interp::HostTensor>> inputs_;
  uint64_t input_digest_ = 0;
  uint64_t digest_inputs() const;
};

/// Evicts `bytes` from `p` on from the CPU caches (a no-op off x86).
void flush_from_caches(const void* p, uint64_t bytes);

}  // namespace mrd::measure
