// Integer analysis shared by the lowering passes: constant bounds of an index expression
// given the ranges of loop variables, structural equality, and linear forms
// (sum of coefficient * atom + constant) used to cancel symbolic terms.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/ir/expr.h"

namespace mrd::lower {

/// v when it is a value of type t, nullopt when it does not fit t (or int64): the check a
/// rewrite makes on a constant it computed in wider arithmetic before it builds it.
std::optional<int64_t> value_of_type(ir::DType t, __int128 v);

/// Inclusive constant range [lo, hi] of a variable.
struct ConstRange {
  int64_t lo = 0, hi = 0;
};
using VarRanges = std::unordered_map<const ir::VarNode*, ConstRange>;

/// The constant range of an integer expression, or nullopt when a variable without a known
/// range (or an unsupported node) is involved.
std::optional<ConstRange> const_bound(const ir::Expr& e, const VarRanges& ranges);

/// The constant range over every lane of a scalar or vector integer expression, as TVM's
/// ConstIntBound sees it: const_bound, and also ramps and broadcasts, truncating division and
/// remainder by a positive constant, and an arithmetic shift or mask by a constant.
std::optional<ConstRange> lane_bound(const ir::Expr& e, const VarRanges& ranges);

/// Constant ends that hold whatever values the variables take, each end on its own: nullopt
/// where it depends on a variable (min(x, 4) <= 4 and max(x, 0) >= 0 for any x). Sums and
/// differences need both ends of both operands, so that nothing here can wrap.
struct ConstEnds {
  std::optional<int64_t> lo, hi;
};
ConstEnds const_ends(const ir::Expr& e);

/// Same node kinds, types, fields and children; variables compare by identity.
bool structural_equal(const ir::Expr& a, const ir::Expr& b);
/// The same number of expressions, structurally equal one by one (two index lists).
bool structural_equal(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b);

/// A hash that agrees with structural_equal (equal expressions hash alike), memoized by node:
/// keep one only while the expressions it has hashed are alive, since a freed node's address
/// may come back as another node.
class StructuralHasher {
 public:
  size_t operator()(const ir::Expr& e);

 private:
  std::unordered_map<const ir::ExprNode*, size_t> memo_;
};

/// sum(coeff * atom) + constant. Atoms are the non-linear leaves (variables, floordiv, ...).
struct LinearForm {
  std::vector<std::pair<ir::Expr, int64_t>> terms;
  int64_t constant = 0;
  ir::DType dtype = ir::DType::Int32;
};
/// The linear form of an integer expression (always succeeds; unknown nodes become atoms).
LinearForm to_linear(const ir::Expr& e);
ir::Expr from_linear(const LinearForm& f);

/// An int32 immediate for a loop bound, extent, stride or index constant. Loop variables and
/// flat indices are int32, so a value outside int32 is a UserError naming `what`.
ir::Expr index_imm(int64_t v, std::string_view what);

/// a * b for extents and strides, a UserError naming `what` when it does not fit int32.
int64_t index_mul(int64_t a, int64_t b, std::string_view what);

}  // namespace mrd::lower
