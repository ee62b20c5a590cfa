// How measurer shows results: a progress bar on stderr, a readable table or one JSON object
// per line on stdout.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/measure/measure_types.h"

namespace mrd::cli {

/// Mean of the costs in seconds; 0 for none.
double mean_cost(const measure::MeasureResult& r);

/// One result as a JSON object (index, error, costs, mean_cost, timings, cache_hit, policy).
nlohmann::json result_json(uint32_t index, const measure::MeasureResult& r);

/// The table's header and one row.
std::string table_header();
std::string table_row(uint32_t index, const measure::MeasureResult& r);

/// A one-line progress bar redrawn in place on stderr (only when stderr is a terminal,
/// unless forced).
class Progress {
 public:
  Progress(size_t total, bool enabled);
  void update(size_t done, size_t errors);
  void finish();

 private:
  size_t total_;
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace mrd::cli
