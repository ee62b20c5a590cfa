// The tuner's random source: one std::mt19937_64 seeded by the user's seed, used only through
// its raw output and `%`, so that a seed gives the same search on every platform.
#pragma once

#include <cstdint>
#include <random>

namespace mrd::tune {

using Rng = std::mt19937_64;

/// A uniform-ish index in [0, n); n must be positive.
inline size_t rand_index(Rng& rng, size_t n) {
  return static_cast<size_t>(rng() % n);
}

}  // namespace mrd::tune
