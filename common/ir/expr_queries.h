// Questions about an expression that passes and backends ask alike.
#pragma once

#include "common/ir/expr_functor.h"

namespace mrd::ir {

/// True when `e` contains the node `v` (a variable, by identity).
inline bool uses(const Expr& e, const ExprNode* v) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) { found = found || x.get() == v; });
  return found;
}

/// True when `e` reads a buffer.
inline bool has_load(const Expr& e) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) { found = found || x.as<BufferLoadNode>() != nullptr; });
  return found;
}

}  // namespace mrd::ir
