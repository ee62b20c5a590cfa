// The builder API for tensor expressions, reading like TVM's te:
//   auto A = placeholder({512, 512}, "A");
//   auto k = reduce_axis(0, 512, "k");
//   auto C = compute({512, 512}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/ir/operation.h"

namespace mrd::ir {

Tensor placeholder(std::vector<int64_t> shape, std::string name, DType dtype = DType::Float32);

/// A reduction axis over [begin, end).
IterVar reduce_axis(int64_t begin, int64_t end, std::string name);

using ComputeFn = std::function<Expr(const std::vector<Var>&)>;

/// A compute op whose axes are named `axis_names` (TVM takes them from the lambda's
/// parameters); missing names default to i0, i1, ...
Tensor compute(std::vector<int64_t> shape, const ComputeFn& fn, std::string name,
               std::vector<std::string> axis_names = {}, std::string tag = "");

namespace detail {
[[noreturn]] void throw_arity_mismatch(size_t ndim);

template <typename F, size_t... I>
Expr call_with_vars(F& f, const std::vector<Var>& v, std::index_sequence<I...>) {
  return f(v[I]...);
}
template <typename F, size_t N, typename = void>
struct takes_n_vars : std::false_type {};
template <typename F>
struct takes_n_vars<F, 1, std::void_t<decltype(std::declval<F&>()(std::declval<Var>()))>>
    : std::true_type {};
template <typename F>
struct takes_n_vars<F, 2, std::void_t<decltype(std::declval<F&>()(std::declval<Var>(),
                                                                 std::declval<Var>()))>>
    : std::true_type {};
template <typename F>
struct takes_n_vars<F, 3, std::void_t<decltype(std::declval<F&>()(
                              std::declval<Var>(), std::declval<Var>(), std::declval<Var>()))>>
    : std::true_type {};
template <typename F>
struct takes_n_vars<F, 4,
                    std::void_t<decltype(std::declval<F&>()(std::declval<Var>(), std::declval<Var>(),
                                                            std::declval<Var>(), std::declval<Var>()))>>
    : std::true_type {};
template <typename F>
struct takes_n_vars<F, 5,
                    std::void_t<decltype(std::declval<F&>()(std::declval<Var>(), std::declval<Var>(),
                                                            std::declval<Var>(), std::declval<Var>(),
                                                            std::declval<Var>()))>> : std::true_type {};

template <typename F>
ComputeFn to_compute_fn(F f) {
  if constexpr (std::is_invocable_v<F&, const std::vector<Var>&>) {
    return f;
  } else {
    return [f](const std::vector<Var>& v) mutable -> Expr {
      if constexpr (takes_n_vars<F, 1>::value) {
        if (v.size() == 1) return call_with_vars(f, v, std::make_index_sequence<1>());
      }
      if constexpr (takes_n_vars<F, 2>::value) {
        if (v.size() == 2) return call_with_vars(f, v, std::make_index_sequence<2>());
      }
      if constexpr (takes_n_vars<F, 3>::value) {
        if (v.size() == 3) return call_with_vars(f, v, std::make_index_sequence<3>());
      }
      if constexpr (takes_n_vars<F, 4>::value) {
        if (v.size() == 4) return call_with_vars(f, v, std::make_index_sequence<4>());
      }
      if constexpr (takes_n_vars<F, 5>::value) {
        if (v.size() == 5) return call_with_vars(f, v, std::make_index_sequence<5>());
      }
      throw_arity_mismatch(v.size());
    };
  }
}
}  // namespace detail

/// compute() with a lambda taking one Var per dimension (up to 5) or a vector of Vars.
template <typename F>
Tensor compute(std::vector<int64_t> shape, F f, std::string name,
               std::vector<std::string> axis_names = {}, std::string tag = "") {
  return compute(std::move(shape), detail::to_compute_fn(std::move(f)), std::move(name),
                 std::move(axis_names), std::move(tag));
}

}  // namespace mrd::ir
