#include "common/codegen/affine_index.h"

#include <algorithm>
#include <cstdio>

#include "common/ir/expr_functor.h"
#include "common/ir/scalar_semantics.h"
#include "common/lower/arith.h"
#include "common/util/error.h"

namespace mrd::codegen {

using namespace ir;

namespace {

// Equal keys mean structurally equal expressions (variables by identity); an expression of a
// kind not handled here gets a key of its own.
std::string key_of(const Expr& e) {
  char buf[48];
  if (const auto* v = e.as<VarNode>()) {
    std::snprintf(buf, sizeof buf, "v%p", static_cast<const void*>(v));
    return buf;
  }
  if (const auto* c = e.as<IntImmNode>()) return str_cat("i", c->value);
  if (const auto* b = e.as<BinaryNode>()) {
    return str_cat("(", static_cast<int>(b->op), " ", key_of(b->a), " ", key_of(b->b), ")");
  }
  if (const auto* c = e.as<CastNode>()) {
    return str_cat("(c", static_cast<int>(c->dtype), " ", key_of(c->value), ")");
  }
  std::snprintf(buf, sizeof buf, "n%p", static_cast<const void*>(e.get()));
  return buf;
}

// Factors wrap modulo 2^64 as the index arithmetic itself does, so hostile constants in an
// index cannot overflow here.
void add_scaled(AffineIndex& to, const AffineIndex& from, int64_t k) {
  to.constant = wrapping_add(to.constant, wrapping_mul(from.constant, k));
  for (const auto& [key, term] : from.terms) {
    auto it = to.terms.find(key);
    if (it == to.terms.end()) {
      to.terms.emplace(key, std::make_pair(term.first, wrapping_mul(term.second, k)));
    } else {
      it->second.second = wrapping_add(it->second.second, wrapping_mul(term.second, k));
      if (it->second.second == 0) to.terms.erase(it);
    }
  }
}

AffineIndex atom(const Expr& e) {
  AffineIndex a;
  a.terms.emplace(key_of(e), std::make_pair(e, int64_t{1}));
  return a;
}

}  // namespace

int64_t AffineIndex::coefficient(const VarNode* v) const {
  char buf[48];
  std::snprintf(buf, sizeof buf, "v%p", static_cast<const void*>(v));
  auto it = terms.find(buf);
  return it == terms.end() ? 0 : it->second.second;
}

bool AffineIndex::atom_uses(const VarNode* v) const {
  for (const auto& [key, term] : terms) {
    if (term.first.get() == v) continue;
    bool found = false;
    post_order_visit(term.first, [&](const Expr& x) { found = found || x.get() == v; });
    if (found) return true;
  }
  return false;
}

std::string AffineIndex::base_key() const {
  std::vector<std::string> parts;
  for (const auto& [key, term] : terms) parts.push_back(str_cat(key, "*", term.second, "+"));
  std::sort(parts.begin(), parts.end());  // equal bases, whatever order their terms came in
  std::string s;
  for (const auto& p : parts) s += p;
  return s;
}

AffineTerms::iterator AffineTerms::find(const std::string& key) {
  return std::find_if(entries_.begin(), entries_.end(),
                      [&](const Entry& e) { return e.first == key; });
}

AffineTerms::const_iterator AffineTerms::find(const std::string& key) const {
  return std::find_if(entries_.begin(), entries_.end(),
                      [&](const Entry& e) { return e.first == key; });
}

std::pair<AffineTerms::iterator, bool> AffineTerms::emplace(const std::string& key,
                                                            std::pair<ir::Expr, int64_t> value) {
  auto it = find(key);
  if (it != entries_.end()) return {it, false};
  entries_.emplace_back(key, std::move(value));
  return {entries_.end() - 1, true};
}

AffineIndex affine_of(const Expr& e) {
  AffineIndex a;
  lower::LinearForm f = lower::to_linear(e);
  a.constant = f.constant;
  for (const auto& [x, k] : f.terms) {
    // Widening an int32 index to int64 keeps its value: the terms inside count.
    const auto* c = x.as<CastNode>();
    const bool widening = c && c->dtype == DType::Int64 && c->value->dtype == DType::Int32;
    add_scaled(a, widening ? affine_of(c->value) : atom(x), k);
  }
  return a;
}

AffineIndex flat_affine(const Buffer& b, const std::vector<Expr>& indices) {
  MRD_CHECK(!indices.empty(), "buffer access without an index");
  if (indices.size() == 1) return affine_of(indices[0]);
  MRD_CHECK(indices.size() == b->shape.size(), "buffer access with ", indices.size(),
            " indices into a buffer of rank ", b->shape.size());
  AffineIndex a;
  int64_t stride = 1;
  for (size_t d = indices.size(); d-- > 0;) {
    add_scaled(a, affine_of(indices[d]), stride);
    stride = wrapping_mul(stride, b->shape[d]);
  }
  return a;
}

}  // namespace mrd::codegen
