// The well-behaved client's latencies of one phase of measurerd-probe (alone, under attack)
// and the statistics the probe compares: the worst and the 99th percentile (nearest rank: the
// smallest latency that at least 99% of the requests did not exceed).
#pragma once

#include <cstddef>
#include <vector>

namespace mrd::probe {

struct LatencySummary {
  size_t count = 0;
  double worst = 0;
  double p99 = 0;
  double median = 0;
};

LatencySummary summarize(std::vector<double> seconds);

}  // namespace mrd::probe
