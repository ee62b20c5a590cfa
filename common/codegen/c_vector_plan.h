// The C printer's vector plan: which vectorized loops become GCC vector statements and how
// they are cut into chunks. A vectorized loop with constant bounds whose body is one store
// under a chain of conditions, of contiguous or lane-invariant operands with + - * min max (and
// / for floats) and selects, is cut into chunks of 16, 8, 4, 2 float lanes (8, 4, 2 double
// lanes...) and single lanes for a remainder. A condition on the lane must be affine in it
// (k * lane + c compared with 0): with constant terms only (padding borders) the loop is cut
// where it changes and each chunk takes its branch statically; with lane-invariant terms
// (guards of non-divisible splits) the printer checks it at each chunk's first and last lane
// and runs the chunk lane by lane when it fails. A strided read is gathered only into a
// register accumulator. Every other vectorized loop stays a loop.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/ir/stmt.h"

namespace mrd::codegen {

/// Vectorized loops up to this many lanes that stay loops are printed lane by lane.
inline constexpr int64_t kMaxScalarLanes = 4;

/// A comparison affine in the lane variable: k * lane + (other terms) + c against 0.
struct CondAtom {
  ir::Expr expr;
  ir::BinaryOp op = ir::BinaryOp::LT;
  int64_t k = 0, c = 0;
  /// No other terms: its value is known for each lane.
  bool is_static = false;
  /// Its value at `lane` (for a static atom).
  bool value_at(int64_t lane) const;
};

/// What the printer knows where the loop is printed.
struct VectorContext {
  /// The buffer lives in registers in the region being printed (as far as known so far).
  std::function<bool(const ir::BufferNode*)> in_registers;
  /// The buffer is a candidate for registers in that region, failed or not.
  std::function<bool(const ir::BufferNode*)> register_candidate;
  /// The loop is copied by a `GCC unroll` pragma above it.
  bool copied = false;
};

/// A vectorized loop as vector statements.
struct VectorPlan {
  const ir::VarNode* var = nullptr;
  const ir::StoreNode* store = nullptr;
  /// The conditions around the store, outermost first.
  std::vector<ir::Expr> conds;
  /// The comparisons on the lane in the conditions and selects, by node.
  std::unordered_map<const ir::ExprNode*, CondAtom> atoms;
  /// (first lane, width) in lane order; a chunk of width 1 is a scalar statement.
  std::vector<std::pair<int64_t, int>> chunks;
};

/// The plan for vectorized loop `op`, or nullopt when it stays a loop.
std::optional<VectorPlan> plan_vector_loop(const ir::ForNode* op, const VectorContext& ctx);

/// True when every store below `s` indexes with `v` outside of floordiv/floormod, so the
/// iterations of a loop over `v` write distinct elements and `omp simd` is safe.
bool stores_vary_with(const ir::Stmt& s, const ir::ExprNode* v);

}  // namespace mrd::codegen
