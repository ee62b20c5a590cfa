// Tile sizes for a split, as TVM's SplitFactorizationMemo: the divisors of an extent, and every
// way to write the extent as a product of n+1 factors whose n inner factors become a split's
// lengths (the innermost at most max_innermost). Results are memoised per query.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace mrd::tune {

/// Largest innermost split factor (TVM's max_innermost_split_factor default).
inline constexpr int64_t kMaxInnermostSplitFactor = 64;

class SplitFactorization {
 public:
  /// The divisors of n, ascending.
  const std::vector<int64_t>& factors(int64_t n);
  /// Every length list l (n_lengths entries, outer→inner) with product(l) dividing extent and
  /// l.back() <= max_innermost, in a fixed order.
  const std::vector<std::vector<int64_t>>& schemes(int64_t extent, int n_lengths,
                                                   int64_t max_innermost);

 private:
  void enumerate(int now, int64_t remaining, int64_t max_innermost, std::vector<int64_t>& stack,
                 std::vector<std::vector<int64_t>>& out);

  std::map<int64_t, std::vector<int64_t>> factors_;
  std::map<std::tuple<int64_t, int, int64_t>, std::vector<std::vector<int64_t>>> schemes_;
};

}  // namespace mrd::tune
