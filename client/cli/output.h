// How measurer shows results: a progress bar on stderr, a readable table or one JSON object
// per line on stdout.
#pragma once

#include <cstdint>
#include <string>

#include "common/measure/measure_types.h"
#include "common/measure/result_json.h"

namespace mrd::cli {

using measure::gflops;
using measure::mean_cost;

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
