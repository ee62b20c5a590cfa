// measurer plot LOG -o curve.svg: the tuning curve of a record log, best so far against trial
// number, one line per workload.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>

#include "client/cli/commands.h"
#include "client/cli/log_summary.h"
#include "client/cli/svg_chart.h"

namespace mrd::cli {

int run_plot(const Common& /*common*/, const PlotArgs& args) {
  std::vector<WorkloadLog> logs;
  try {
    logs = read_log_by_workload(args.log_file);
  } catch (const std::exception& e) {
    std::cerr << "measurer plot: " << args.log_file << ": " << e.what() << "\n";
    return kUsage;
  }
  if (logs.empty()) {
    std::cerr << "measurer plot: " << args.log_file << " holds no records\n";
    return kUsage;
  }
  // GFLOP/s when every workload's FLOPs are known, else mean cost in ms for all.
  bool gflops = true;
  for (const auto& w : logs) gflops = gflops && w.flops > 0;
  if (!gflops)
    std::cerr << "measurer plot: FLOPs unknown for a workload key (a tensor workload or an "
                 "unknown name): plotting the lowest mean cost so far in ms instead\n";

  Chart chart;
  chart.title = args.title.empty()
                    ? "Tuning curve: " + std::filesystem::path(args.log_file).filename().string()
                    : args.title;
  chart.x_label = "trial";
  chart.integer_x = true;
  chart.y_label = gflops ? "best GFLOP/s so far" : "lowest mean cost so far (ms)";
  for (const auto& w : logs) {
    Series s;
    s.name = w.key;
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < w.records.size(); ++i) {
      const auto& r = w.records[i];
      if (r.result.error_no == measure::MeasureErrorNo::NoError && !r.result.costs.empty())
        best = std::min(best, record_cost(r));
      if (best == std::numeric_limits<double>::infinity() || best <= 0) continue;
      double y = gflops ? w.flops / best / 1e9 : best * 1e3;
      double x = static_cast<double>(i + 1);
      if (!s.points.empty() && s.points.back().second != y)
        s.points.emplace_back(x, s.points.back().second);  // a step, not a slope
      s.points.emplace_back(x, y);
    }
    if (s.points.empty())
      std::cerr << "measurer plot: " << w.key << ": no record without error\n";
    chart.series.push_back(std::move(s));
  }
  std::ofstream out(args.out);
  out << render_svg(chart);
  out.close();
  if (!out) {
    std::cerr << "measurer plot: cannot write " << args.out << "\n";
    return kUsage;
  }
  size_t n = 0;
  for (const auto& w : logs) n += w.records.size();
  std::cout << "wrote " << args.out << ": " << n << " records of " << logs.size()
            << " workload(s)\n";
  return kOk;
}

}  // namespace mrd::cli
