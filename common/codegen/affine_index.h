// Affine form of an integer index expression: a constant plus integer multiples of atoms,
// where an atom is a variable or a sub-expression that is not linear (a floordiv, a min...).
// The code generator uses it to prove that a vectorized loop reads and writes contiguous
// elements and to find constant offsets into local buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/ir/expr.h"
#include "common/ir/stmt.h"

namespace mrd::codegen {

/// Atoms by key, kept in the order they were first added: the generated C writes terms in
/// this order, so it must not depend on where nodes happen to live in memory (the build cache
/// is keyed on the C text). Few terms: lookups are linear.
class AffineTerms {
 public:
  using Entry = std::pair<std::string, std::pair<ir::Expr, int64_t>>;
  using iterator = std::vector<Entry>::iterator;
  using const_iterator = std::vector<Entry>::const_iterator;

  iterator find(const std::string& key);
  const_iterator find(const std::string& key) const;
  /// Adds (key, value) unless the key is present; like std::map::emplace.
  std::pair<iterator, bool> emplace(const std::string& key, std::pair<ir::Expr, int64_t> value);
  iterator erase(iterator it) { return entries_.erase(it); }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<Entry> entries_;
};

struct AffineIndex {
  /// Atoms by a structural key (variables by identity), with their expression and factor.
  AffineTerms terms;
  int64_t constant = 0;

  /// Factor of variable `v` (0 when absent). A variable inside a non-linear atom is not
  /// counted here: check `atom_uses` for that.
  int64_t coefficient(const ir::VarNode* v) const;
  /// True when a term other than `v` itself mentions `v`.
  bool atom_uses(const ir::VarNode* v) const;
  /// The terms only, without the constant (a key that equal bases share).
  std::string base_key() const;
};

/// The affine form of an integer expression: its linear form (lower::to_linear), looking
/// through casts that widen an int32 index to int64.
AffineIndex affine_of(const ir::Expr& e);

/// The affine form of the row-major flat index of `indices` into `b` (one index is used as is).
AffineIndex flat_affine(const ir::Buffer& b, const std::vector<ir::Expr>& indices);

}  // namespace mrd::codegen
