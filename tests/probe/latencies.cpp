#include "tests/probe/latencies.h"

#include <algorithm>
#include <cmath>

namespace mrd::probe {

namespace {

/// Nearest rank: the ceil(q * n)-th smallest of the sorted `s`.
double rank(const std::vector<double>& s, double q) {
  size_t k = static_cast<size_t>(std::ceil(q * double(s.size())));
  return s[std::min(s.size(), std::max<size_t>(k, 1)) - 1];
}

}  // namespace

LatencySummary summarize(std::vector<double> seconds) {
  LatencySummary out;
  out.count = seconds.size();
  if (seconds.empty()) return out;
  std::sort(seconds.begin(), seconds.end());
  out.worst = seconds.back();
  out.p99 = rank(seconds, 0.99);
  out.median = rank(seconds, 0.5);
  return out;
}

}  // namespace mrd::probe
