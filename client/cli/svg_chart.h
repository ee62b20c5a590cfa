// A line chart written as a standalone SVG document: axes with "nice" ticks, axis labels, a
// title, one polyline per series and a legend. Text is XML-escaped.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mrd::cli {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  ///< (x, y), x ascending
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  bool integer_x = false;  ///< x ticks at whole numbers only (e.g. trial numbers)
};

/// The SVG text (800 x 500 user units).
std::string render_svg(const Chart& chart);

/// Escapes &, <, >, " and ' for XML text and attributes.
std::string xml_escape(const std::string& s);

}  // namespace mrd::cli
