// Sketch generation for CPU, as TVM's SketchPolicy::GenerateSketches: starting from the
// initial state at the last stage, every state is passed through the rules (see
// sketch_rules.h) stage by stage towards the first; a state whose stage id drops below zero is
// a sketch. A sketch fixes the structure of a schedule (inlining, cache and rfactor stages,
// tiling levels, fusion); its split lengths are placeholders of 1 that sampling replaces.
#pragma once

#include <vector>

#include "client/tune/candidate.h"
#include "client/tune/search_state.h"
#include "common/dag/compute_dag.h"

namespace mrd::tune {

/// The sketches of a DAG as states. num_cores (TVM's hardware num_cores) decides when a
/// reduction gets an rfactor sketch; 0 = this machine's core count.
std::vector<SearchState> generate_sketch_states(const dag::ComputeDAG& dag, int num_cores = 0);

/// The sketches as step lists (for tests and `--dump-sketches`); every one lowers.
std::vector<Candidate> generate_sketches(const dag::ComputeDAG& dag, int num_cores = 0);

/// num_cores, or the number of hardware threads when it is 0 (at least 1).
int resolve_num_cores(int num_cores);

}  // namespace mrd::tune
