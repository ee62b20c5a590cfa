#include "client/tune/split_factorization.h"

#include <algorithm>

namespace mrd::tune {

const std::vector<int64_t>& SplitFactorization::factors(int64_t n) {
  auto it = factors_.find(n);
  if (it != factors_.end()) return it->second;
  std::vector<int64_t> res;
  for (int64_t i = 1; i * i <= n; ++i) {
    if (n % i == 0) {
      res.push_back(i);
      if (n / i != i) res.push_back(n / i);
    }
  }
  std::sort(res.begin(), res.end());
  return factors_[n] = std::move(res);
}

const std::vector<std::vector<int64_t>>& SplitFactorization::schemes(int64_t extent, int n_lengths,
                                                                     int64_t max_innermost) {
  auto key = std::make_tuple(extent, n_lengths, max_innermost);
  auto it = schemes_.find(key);
  if (it != schemes_.end()) return it->second;
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> stack(n_lengths, 1);
  enumerate(0, std::max<int64_t>(extent, 1), max_innermost, stack, out);
  return schemes_[key] = std::move(out);
}

void SplitFactorization::enumerate(int now, int64_t remaining, int64_t max_innermost,
                                   std::vector<int64_t>& stack,
                                   std::vector<std::vector<int64_t>>& out) {
  if (now == static_cast<int>(stack.size())) {
    if (stack.empty() || stack.back() <= max_innermost) out.push_back(stack);
    return;
  }
  // Copy: factors_ may rehash while we recurse.
  std::vector<int64_t> fs = factors(remaining);
  for (int64_t f : fs) {
    stack[now] = f;
    enumerate(now + 1, remaining / f, max_innermost, stack, out);
  }
}

}  // namespace mrd::tune
