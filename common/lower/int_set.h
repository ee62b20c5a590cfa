// Symbolic integer intervals for bound inference: [min, max] (inclusive) whose ends are
// expressions over the loop variables that stay fixed, as TVM's IntSet in bound.cc.
#pragma once

#include <optional>
#include <unordered_map>

#include "common/ir/expr.h"

namespace mrd::lower {

struct IntSet {
  ir::Expr min, max;
  static IntSet point(ir::Expr e) { return IntSet{e, e}; }
  static IntSet range(int64_t lo, int64_t hi);
  /// [min, max], a point when the two are structurally equal.
  static IntSet of(ir::Expr min, ir::Expr max);
  bool is_point() const { return min.same_as(max); }
};

using SetMap = std::unordered_map<const ir::VarNode*, IntSet>;

/// The set of values e takes when each variable in `dom` ranges over its set (variables not
/// in dom are fixed). nullopt when the expression is not understood (callers then fall back
/// to the full domain).
std::optional<IntSet> eval_set(const ir::Expr& e, const SetMap& dom);

}  // namespace mrd::lower
