// The C printer's register plan: which local allocations live in variables (vector or scalar
// registers) within a region, a loop body without inner loops or an allocation's whole scope.
// A local buffer qualifies when every access in the region is at a constant offset from one
// region-invariant base, each accessed chunk (W lanes of a vector statement, or one element)
// being one variable; chunks may differ in width but never overlap, and all of them stay
// within the buffer for every value of the base's loop variables. The printer discovers the
// accesses by printing the region, admits each here, and retries without the buffers that
// failed; the variables are loaded on entry to the region and the stored ones written back on
// exit.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/codegen/affine_index.h"
#include "common/ir/stmt.h"

namespace mrd::codegen {

inline constexpr int kMaxVectorRegisters = 28;
inline constexpr int kMaxScalarRegisters = 64;

/// The constant range of each loop variable in scope, inclusive.
using LoopRanges = std::unordered_map<const ir::ExprNode*, std::pair<int64_t, int64_t>>;

/// One variable standing for a buffer: `width` lanes (0: a single element).
struct RegisterChunk {
  int width = 0;
  bool stored = false;
};

/// One local buffer of `size` elements in registers within a region.
class RegisterPromotion {
 public:
  explicit RegisterPromotion(int64_t size) : size_(size) {}

  /// Admits an access at flat index `a`: `width` lanes of the vector statement over `lane`
  /// from `lane_start`, or one element when `lane` is null. The terms besides the lane must
  /// use no variable bound inside the region (`region_bound`) and range over `ranges`.
  /// Returns the chunk's offset from the base, or nullopt when the access does not fit: the
  /// promotion has then failed.
  std::optional<int64_t> admit(AffineIndex a, const ir::ExprNode* lane, int64_t lane_start, int width,
                               const LoopRanges& ranges, const std::unordered_set<const ir::ExprNode*>& region_bound,
                               bool store);
  bool failed() const { return failed_; }
  /// The terms of the base, as of the first admitted access.
  const AffineTerms& base() const { return base_; }
  /// By offset from the base.
  const std::map<int64_t, RegisterChunk>& chunks() const { return chunks_; }

 private:
  std::optional<int64_t> fail() {
    failed_ = true;
    return std::nullopt;
  }

  int64_t size_;
  bool started_ = false, failed_ = false;
  std::string base_key_;
  AffineTerms base_;
  std::map<int64_t, RegisterChunk> chunks_;
};

/// Variables held in registers: vector ones and scalar ones.
struct RegisterCount {
  int64_t vector = 0, scalar = 0;
};

/// The variables the chunks of `promotions` take.
RegisterCount register_count(const std::vector<const RegisterPromotion*>& promotions);
/// Each kind's larger count.
RegisterCount max_count(RegisterCount a, RegisterCount b);
/// True when both counts are within the vector and scalar register budgets.
bool within_budget(RegisterCount c);

/// True when the chunks of `promotions` together fit the vector and scalar register budgets.
bool fits_registers(const std::vector<const RegisterPromotion*>& promotions);

/// True when a local buffer of `elements` of `t` may live in registers for its whole scope.
bool fits_whole_scope(int64_t elements, ir::DType t);

/// The buffers among `allocated` that `s` reads or writes, in order of first access.
std::vector<const ir::BufferNode*> accessed_locals(const ir::Stmt& s,
                                                   const std::unordered_map<const ir::BufferNode*, int64_t>& allocated);

}  // namespace mrd::codegen
