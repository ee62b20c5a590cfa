#include "client/cli/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace mrd::cli {
namespace {

constexpr double kWidth = 800, kHeight = 500;
constexpr double kLeft = 80, kRight = 30, kTop = 50, kBottom = 60;
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                               "#9467bd", "#8c564b", "#e377c2", "#17becf"};

/// A step of 1, 2 or 5 times a power of ten giving about `target` intervals over `span`.
double nice_step(double span, int target) {
  double raw = span / target;
  double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string tick_label(double v, double step) {
  char buf[32];
  int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
  std::snprintf(buf, sizeof buf, "%.*f", std::min(decimals, 6), v);
  return buf;
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_svg(const Chart& chart) {
  double x_min = 0, x_max = 1, y_min = 0, y_max = 0;
  bool any = false;
  for (const auto& s : chart.series)
    for (auto [x, y] : s.points) {
      x_max = any ? std::max(x_max, x) : std::max(1.0, x);
      y_max = any ? std::max(y_max, y) : y;
      any = true;
    }
  if (!any || y_max <= y_min) y_max = y_min + 1;
  double x_step = nice_step(x_max - x_min, 8), y_step = nice_step(y_max - y_min, 6);
  if (chart.integer_x) x_step = std::max(1.0, x_step);
  x_max = std::ceil(x_max / x_step) * x_step;
  y_max = std::ceil(y_max / y_step) * y_step;
  double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  auto sx = [&](double x) { return kLeft + (x - x_min) / (x_max - x_min) * pw; };
  auto sy = [&](double y) { return kTop + ph - (y - y_min) / (y_max - y_min) * ph; };

  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
    << "\" viewBox=\"0 0 " << kWidth << " " << kHeight
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << kWidth / 2 << "\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">"
    << xml_escape(chart.title) << "</text>\n";
  // Grid and ticks.
  o << "<g stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (double x = x_min; x <= x_max + x_step / 2; x += x_step)
    o << "<line x1=\"" << num(sx(x)) << "\" y1=\"" << kTop << "\" x2=\"" << num(sx(x))
      << "\" y2=\"" << kTop + ph << "\"/>\n";
  for (double y = y_min; y <= y_max + y_step / 2; y += y_step)
    o << "<line x1=\"" << kLeft << "\" y1=\"" << num(sy(y)) << "\" x2=\"" << kLeft + pw
      << "\" y2=\"" << num(sy(y)) << "\"/>\n";
  o << "</g>\n<g text-anchor=\"middle\">\n";
  for (double x = x_min; x <= x_max + x_step / 2; x += x_step)
    o << "<text x=\"" << num(sx(x)) << "\" y=\"" << kTop + ph + 18 << "\">"
      << tick_label(x, x_step) << "</text>\n";
  o << "</g>\n<g text-anchor=\"end\">\n";
  for (double y = y_min; y <= y_max + y_step / 2; y += y_step)
    o << "<text x=\"" << kLeft - 8 << "\" y=\"" << num(sy(y) + 4) << "\">"
      << tick_label(y, y_step) << "</text>\n";
  o << "</g>\n";
  // Axes and their labels.
  o << "<g stroke=\"black\" stroke-width=\"1.5\">\n"
    << "<line x1=\"" << kLeft << "\" y1=\"" << kTop + ph << "\" x2=\"" << kLeft + pw << "\" y2=\""
    << kTop + ph << "\"/>\n"
    << "<line x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\""
    << kTop + ph << "\"/>\n</g>\n"
    << "<text x=\"" << kLeft + pw / 2 << "\" y=\"" << kHeight - 15
    << "\" text-anchor=\"middle\" font-size=\"14\">" << xml_escape(chart.x_label) << "</text>\n"
    << "<text x=\"20\" y=\"" << kTop + ph / 2 << "\" text-anchor=\"middle\" font-size=\"14\" "
    << "transform=\"rotate(-90 20 " << kTop + ph / 2 << ")\">" << xml_escape(chart.y_label)
    << "</text>\n";
  // Series and legend.
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const auto& s = chart.series[i];
    const char* color = kColors[i % (sizeof kColors / sizeof kColors[0])];
    o << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\" points=\"";
    for (auto [x, y] : s.points) o << num(sx(x)) << "," << num(sy(y)) << " ";
    o << "\"/>\n";
    double ly = kTop + 12 + 18 * static_cast<double>(i);
    o << "<line x1=\"" << kLeft + 12 << "\" y1=\"" << num(ly) << "\" x2=\"" << kLeft + 36
      << "\" y2=\"" << num(ly) << "\" stroke=\"" << color << "\" stroke-width=\"2\"/>\n"
      << "<text x=\"" << kLeft + 42 << "\" y=\"" << num(ly + 4) << "\">" << xml_escape(s.name)
      << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace mrd::cli
