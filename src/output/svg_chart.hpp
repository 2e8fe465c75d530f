#pragma once

#include <string>
#include <vector>

// Charts as inline SVG text, for the self-contained HTML report (`podsim report --html`):
// no script, no font or file fetched, the same input gives the same bytes. Each chart is
// 760 px wide and as tall as its rows need.

namespace podsim::output::svg {

/// Horizontal bars, one per row, each a stack of parts (values ≥ 0; NaN counts as 0), on a
/// linear axis from 0. With one part it is a plain bar chart.
struct StackedBars {
  std::string title;
  std::string unit;                         ///< of the axis, e.g. "s" or "GiB"
  std::vector<std::string> rows;            ///< one label per bar
  std::vector<std::string> parts;           ///< one legend entry per part
  std::vector<std::vector<double>> values;  ///< [row][part]
  double limit = 0;                         ///< > 0: a dashed line there (HBM capacity), labelled
  std::string limit_label;
};
std::string render(const StackedBars& chart);

/// Points (x, y) in groups, each group a colour (optionally joined by lines in x order).
struct Scatter {
  std::string title, x_label, y_label;
  bool log_x = false;
  bool lines = false;
  struct Point {
    double x = 0, y = 0;
    std::size_t group = 0;
    bool marked = false;  ///< drawn as a larger ring (the winner)
  };
  std::vector<Point> points;        ///< non-finite points are left out
  std::vector<std::string> groups;  ///< legend entries
};
std::string render(const Scatter& chart);

/// A tornado chart: per row a bar left or right of 0 for each of two variants (the % change
/// of the step time when a knob goes down, and up), rows in the given order.
struct Tornado {
  std::string title;
  std::string unit;  ///< "%"
  std::vector<std::string> rows;
  std::vector<double> low, high;  ///< NaN: the variant did not run or does not exist
  std::string low_label, high_label;
};
std::string render(const Tornado& chart);

/// `text` with &, <, >, " escaped for XML and HTML.
std::string escape(const std::string& text);

}  // namespace podsim::output::svg
