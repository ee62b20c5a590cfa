// How measurer shows results: a progress bar on stderr, a readable table or one JSON object
// per line on stdout.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/measure/measure_types.h"

namespace mrd::cli {

/// Mean of the costs in seconds; 0 for none.
double mean_cost(const measure::MeasureResult& r);

/// GFLOP/s of a result: `flops` (the task's flop count) over the mean cost; 0 for an error
/// result or an unknown (non-positive) flop count.
double gflops(const measure::MeasureResult& r, double flops);

/// One result as a JSON object (index, error, costs, mean_cost, timings, cache_hit, policy).
/// With `flops` given (the task's flop count, <= 0 when unknown), also `gflops`: a number,
/// or null for an error result or an unknown flop count.
nlohmann::json result_json(uint32_t index, const measure::MeasureResult& r,
                           std::optional<double> flops = std::nullopt);

/// The table's header and one row; GFLOP/s shows "-" for errors and unknown flop counts.
std::string table_header();
std::string table_row(uint32_t index, const measure::MeasureResult& r, double flops);

/// A one-line progress bar redrawn in place on stderr (only when stderr is a terminal,
/// unless forced).
class Progress {
 public:
  Progress(size_t total, bool enabled);
  void update(size_t done, size_t errors);
  /// Erases the bar (before a row is printed on the terminal); the next update() redraws it.
  void clear();
  /// Ends the bar's line, leaving it on screen.
  void finish();

 private:
  size_t total_;
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace mrd::cli
