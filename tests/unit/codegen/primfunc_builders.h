// Test support shared by the backends' tests: 64-byte-aligned host arrays and hand-built
// PrimFuncs (loads, stores, a matmul nest with chosen loop kinds).
#pragma once

#include <cstdlib>

#include "common/ir/expr.h"
#include "common/ir/stmt.h"

namespace mrd::test {

template <typename T>
struct Aligned {
  T* p;
  size_t n;
  explicit Aligned(size_t count) : n(count) {
    p = static_cast<T*>(std::aligned_alloc(64, (count * sizeof(T) + 63) / 64 * 64));
    for (size_t i = 0; i < n; ++i) p[i] = T();
  }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  ~Aligned() { std::free(p); }
  T& operator[](size_t i) { return p[i]; }
};

inline ir::Expr load(const ir::Buffer& b, ir::Expr i) { return ir::BufferLoadNode::make(b, {std::move(i)}); }
inline ir::Stmt store(const ir::Buffer& b, ir::Expr i, ir::Expr v) {
  return ir::StoreNode::make(b, {std::move(i)}, std::move(v));
}

/// C[i, j] = sum_k A[i, k] * B[k, j] (n x n, float32) with the given kinds on i, j, k.
inline ir::PrimFunc matmul(int n, ir::ForKind ki, ir::ForKind kj, ir::ForKind kk) {
  using namespace ir;
  auto A = BufferNode::make("A", DType::Float32, {n, n});
  auto B = BufferNode::make("B", DType::Float32, {n, n});
  auto C = BufferNode::make("C", DType::Float32, {n, n});
  Var i("i"), j("j"), k("k");
  Expr cij = i * n + j;
  Stmt init = store(C, cij, Expr(0.0f));
  Stmt upd = store(C, cij, load(C, cij) + load(A, i * n + k) * load(B, k * n + j));
  Stmt body = ForNode::make(i, 0, n, ki,
                            SeqNode::make({ForNode::make(j, 0, n, kj, init),
                                           ForNode::make(k, 0, n, kk, ForNode::make(j, 0, n, kj, upd))}));
  return PrimFunc{{A, B, C}, body};
}

}  // namespace mrd::test
