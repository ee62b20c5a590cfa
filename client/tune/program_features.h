// Features of a lowered program for the tuner's cost model, in the spirit of TVM's per-store
// features: what each store's loop nest looks like (extents and annotations of the loops
// around it, from the innermost out), how its accesses walk memory (strides along the
// innermost loop; bytes and cache lines touched inside each loop level, in all and by each of
// the first accesses; loads per byte touched, which is how much a level reuses) and how much
// work it does. Unlike features of the transform steps, these mean the same thing for every
// sketch, so states of different structures are compared on one scale.
#pragma once

#include <vector>

#include "common/dag/compute_dag.h"
#include "common/ir/stmt.h"
#include "common/schedule/transform_steps.h"

namespace mrd::tune {

/// Loop levels described per store, innermost first.
inline constexpr int kFeatureLoopLevels = 8;
/// Stores described, the most executed first.
inline constexpr int kFeatureStores = 3;
/// Accesses of a store whose bytes are given one by one at each level: the store, then its
/// first loads.
inline constexpr int kFeatureAccesses = 4;
/// Features of one loop level of a store: extent, kind, whether the store is invariant to it,
/// bytes and cache lines touched inside it, loads per byte touched, and the bytes of each of
/// the first kFeatureAccesses accesses.
inline constexpr int kFeaturesPerLevel = 6 + kFeatureAccesses;
/// Features of one store.
inline constexpr int kFeaturesPerStore = 12 + kFeaturesPerLevel * kFeatureLoopLevels;
/// Length of every feature vector.
inline constexpr int kProgramFeatures = 3 + kFeatureStores * kFeaturesPerStore;

/// The feature vector of a lowered function (before the backend's tail of passes: loops keep
/// their annotations). Always kProgramFeatures long; absent stores and levels are zeros.
std::vector<double> program_features(const ir::PrimFunc& f);

/// program_features(lower(dag, steps)), or an empty vector when the state does not lower.
std::vector<double> state_features(const dag::ComputeDAG& dag,
                                   const std::vector<schedule::Step>& steps);

}  // namespace mrd::tune
