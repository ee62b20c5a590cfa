// The one JSON shape of a measure result, shared by `measurerd-worker --once`,
// `measurer submit --json`, `replay --json`, `tune --json` and `best --json`
// (proto-docs/task-format.md, "Result objects").
#pragma once

#include <nlohmann/json.hpp>

#include "common/measure/measure_types.h"

namespace mrd::measure {

/// Mean of the costs in seconds; 0 for none.
double mean_cost(const MeasureResult& r);

/// GFLOP/s of a result: `flops` (the task's flop count) over the mean cost; 0 for an error
/// result or an unknown (non-positive) flop count.
double gflops(const MeasureResult& r, double flops);

/// error_no, error, error_msg, costs, mean_cost, gflops (null for an error result or an
/// unknown flop count, i.e. `flops` <= 0), all_cost, build_seconds, run_seconds, cache_hit,
/// timing_policy, timestamp.
nlohmann::json result_json(const MeasureResult& r, double flops);

/// The same with "index": one line of a stream of results.
nlohmann::json indexed_result_json(size_t index, const MeasureResult& r, double flops);

}  // namespace mrd::measure
