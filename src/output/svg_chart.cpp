#include "output/svg_chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace podsim::output::svg {

namespace {

constexpr double kWidth = 760;
constexpr double kLeft = 210;    // row labels
constexpr double kRight = 24;
constexpr double kTop = 30;      // title
constexpr double kRowHeight = 22;
constexpr double kAxisHeight = 40;
constexpr double kPlotHeight = 300;  // scatter plots

// Tableau 10 (distinguishable, what matplotlib users expect), then two darker tones so the
// eleven time categories each have their own.
constexpr std::array<const char*, 12> kPalette{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                                               "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#555555", "#1b7837"};

const char* colour(std::size_t i) { return kPalette[i % kPalette.size()]; }

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// A tick label: 3 significant digits, no trailing zeros.
std::string tick_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// Round steps (1, 2, 5 × 10^k) covering [lo, hi] with about 5 ticks.
std::vector<double> linear_ticks(double lo, double hi) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  // From the last tick at or below lo to the first at or above hi, so the data stays inside.
  std::vector<double> ticks;
  for (double t = std::floor(lo / step + 1e-9) * step;; t += step) {
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
    if (t >= hi - step * 1e-9 || ticks.size() > 100) break;
  }
  return ticks;
}

std::string header(double height, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" + num(height) +
         "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\"><title>" + escape(title) +
         "</title>\n<text x=\"" + num(kLeft) + "\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" + escape(title) +
         "</text>\n";
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start", const char* extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" + extra + ">" + escape(s) +
         "</text>\n";
}

std::string rect(double x, double y, double w, double h, const char* fill, const std::string& tip) {
  return "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 0.0)) + "\" height=\"" + num(h) +
         "\" fill=\"" + fill + "\"><title>" + escape(tip) + "</title></rect>\n";
}

std::string line(double x1, double y1, double x2, double y2, const char* stroke, const char* extra = "") {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
         "\" stroke=\"" + stroke + "\"" + extra + "/>\n";
}

/// Characters of UTF-8 `s` (continuation bytes not counted).
std::size_t characters(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
  return n;
}

/// A legend of coloured squares below the title, entries side by side as wide as their names
/// (12 px sans-serif: about 6.5 px a character), on a new line when the next does not fit.
/// Returns its height.
double legend(std::string& out, const std::vector<std::string>& names, double y) {
  if (names.size() < 2) return 0;
  constexpr double kCharacter = 6.5, kSquare = 14, kGap = 18;
  double x = kLeft, row = y;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double width = kSquare + kCharacter * static_cast<double>(characters(names[i]));
    if (x > kLeft && x + width > kWidth - kRight) {
      x = kLeft;
      row += 16;
    }
    out += rect(x, row - 9, 10, 10, colour(i), names[i]);
    out += text(x + kSquare, row, names[i]);
    x += width + kGap;
  }
  return row - y + 20;
}

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

}  // namespace

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render(const StackedBars& c) {
  std::string body;
  const double legend_height = legend(body, c.parts, kTop + 6);
  const double top = kTop + legend_height + 8;
  double max = c.limit;
  for (const auto& row : c.values) {
    double sum = 0;
    for (double v : row) sum += std::max(0.0, finite_or_zero(v));
    max = std::max(max, sum);
  }
  const auto ticks = linear_ticks(0, max);
  const double axis_max = std::max(ticks.back(), max);
  const double plot_width = kWidth - kLeft - kRight;
  const auto x_of = [&](double v) { return kLeft + plot_width * v / axis_max; };
  const double bottom = top + kRowHeight * static_cast<double>(c.rows.size());
  for (double t : ticks) {
    body += line(x_of(t), top, x_of(t), bottom, "#ddd");
    body += text(x_of(t), bottom + 14, tick_text(t), "middle");
  }
  body += text(kLeft + plot_width / 2, bottom + 32, c.unit, "middle");
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const double y = top + kRowHeight * static_cast<double>(r);
    body += text(kLeft - 6, y + kRowHeight * 0.65, c.rows[r], "end");
    double x = 0;
    for (std::size_t p = 0; p < c.values[r].size(); ++p) {
      const double v = std::max(0.0, finite_or_zero(c.values[r][p]));
      if (v <= 0) continue;
      const std::string name = p < c.parts.size() ? c.parts[p] : "";
      body += rect(x_of(x), y + 3, x_of(x + v) - x_of(x), kRowHeight - 6, colour(p),
                   c.rows[r] + ": " + name + " " + tick_text(v) + " " + c.unit);
      x += v;
    }
  }
  if (c.limit > 0) {
    body += line(x_of(c.limit), top - 4, x_of(c.limit), bottom, "#c00", " stroke-dasharray=\"4 3\"");
    body += text(x_of(c.limit), top - 6, c.limit_label, "end", " fill=\"#c00\"");
  }
  body += line(kLeft, top, kLeft, bottom, "#333");
  return header(bottom + kAxisHeight, c.title) + body + "</svg>\n";
}

std::string render(const Scatter& c) {
  std::vector<Scatter::Point> points;
  for (const auto& p : c.points) {
    if (std::isfinite(p.x) && std::isfinite(p.y) && (!c.log_x || p.x > 0)) points.push_back(p);
  }
  std::string body;
  const double legend_height = legend(body, c.groups, kTop + 6);
  const double top = kTop + legend_height + 8;
  const double bottom = top + kPlotHeight;
  const double plot_width = kWidth - kLeft - kRight;
  double x_lo = 0, x_hi = 1, y_hi = 1;
  if (!points.empty()) {
    const auto xs = [&](const Scatter::Point& p) { return c.log_x ? std::log10(p.x) : p.x; };
    x_lo = x_hi = xs(points.front());
    y_hi = 0;
    for (const auto& p : points) {
      x_lo = std::min(x_lo, xs(p));
      x_hi = std::max(x_hi, xs(p));
      y_hi = std::max(y_hi, p.y);
    }
    if (c.log_x) {
      x_lo = std::floor(x_lo);
      x_hi = std::max(std::ceil(x_hi), x_lo + 1);
    } else {
      x_lo = std::min(0.0, x_lo);
    }
  }
  const auto y_ticks = linear_ticks(0, y_hi);
  const double y_max = std::max(y_ticks.back(), y_hi);
  std::vector<double> x_ticks;
  if (c.log_x) {
    for (double e = x_lo; e <= x_hi; e += 1) x_ticks.push_back(e);
  } else {
    x_ticks = linear_ticks(x_lo, x_hi);
    x_hi = std::max(x_hi, x_ticks.back());
  }
  if (!(x_hi > x_lo)) x_hi = x_lo + 1;
  const auto x_of = [&](double x) { return kLeft + plot_width * ((c.log_x ? std::log10(x) : x) - x_lo) / (x_hi - x_lo); };
  const auto x_of_axis = [&](double a) { return kLeft + plot_width * (a - x_lo) / (x_hi - x_lo); };
  const auto y_of = [&](double y) { return bottom - kPlotHeight * y / y_max; };
  for (double t : y_ticks) {
    body += line(kLeft, y_of(t), kLeft + plot_width, y_of(t), "#ddd");
    body += text(kLeft - 6, y_of(t) + 4, tick_text(t), "end");
  }
  for (double t : x_ticks) {
    body += line(x_of_axis(t), top, x_of_axis(t), bottom, "#eee");
    body += text(x_of_axis(t), bottom + 14, c.log_x ? "1e" + tick_text(t) : tick_text(t), "middle");
  }
  body += line(kLeft, bottom, kLeft + plot_width, bottom, "#333");
  body += line(kLeft, top, kLeft, bottom, "#333");
  body += text(kLeft + plot_width / 2, bottom + 32, c.x_label, "middle");
  body += text(kLeft - 60, top + kPlotHeight / 2, c.y_label, "middle",
               (" transform=\"rotate(-90 " + num(kLeft - 60) + " " + num(top + kPlotHeight / 2) + ")\"").c_str());
  if (c.lines) {
    for (std::size_t g = 0; g < std::max<std::size_t>(c.groups.size(), 1); ++g) {
      std::vector<Scatter::Point> in;
      for (const auto& p : points) {
        if (p.group == g) in.push_back(p);
      }
      std::stable_sort(in.begin(), in.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
      if (in.size() < 2) continue;
      std::string path = "<polyline fill=\"none\" stroke=\"" + std::string(colour(g)) + "\" stroke-width=\"1.5\" points=\"";
      for (const auto& p : in) path += num(x_of(p.x)) + "," + num(y_of(p.y)) + " ";
      body += path + "\"/>\n";
    }
  }
  for (const auto& p : points) {
    body += "<circle cx=\"" + num(x_of(p.x)) + "\" cy=\"" + num(y_of(p.y)) + "\" r=\"" + (p.marked ? "7" : "3") +
            "\" fill=\"" + (p.marked ? "none" : colour(p.group)) + "\" stroke=\"" + colour(p.group) + "\"" +
            (p.marked ? " stroke-width=\"2.5\"" : "") + "><title>" +
            escape((p.group < c.groups.size() ? c.groups[p.group] + ": " : std::string()) + tick_text(p.x) + ", " +
                   tick_text(p.y)) +
            "</title></circle>\n";
  }
  return header(bottom + kAxisHeight, c.title) + body + "</svg>\n";
}

std::string render(const Tornado& c) {
  std::string body;
  const double legend_height = legend(body, {c.low_label, c.high_label}, kTop + 6);
  const double top = kTop + legend_height + 8;
  double extent = 0;
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    extent = std::max({extent, std::abs(finite_or_zero(c.low[r])), std::abs(finite_or_zero(c.high[r]))});
  }
  const auto ticks = linear_ticks(-extent, extent);
  const double lim = std::max({std::abs(ticks.front()), std::abs(ticks.back()), extent, 1e-9});
  const double plot_width = kWidth - kLeft - kRight;
  const auto x_of = [&](double v) { return kLeft + plot_width * (v + lim) / (2 * lim); };
  const double bottom = top + kRowHeight * static_cast<double>(c.rows.size());
  for (double t : ticks) {
    body += line(x_of(t), top, x_of(t), bottom, "#ddd");
    body += text(x_of(t), bottom + 14, tick_text(t), "middle");
  }
  body += text(kLeft + plot_width / 2, bottom + 32, "step time change (" + c.unit + ")", "middle");
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const double y = top + kRowHeight * static_cast<double>(r);
    body += text(kLeft - 6, y + kRowHeight * 0.65, c.rows[r], "end");
    const std::array<double, 2> values{c.low[r], c.high[r]};
    for (std::size_t v = 0; v < 2; ++v) {
      if (!std::isfinite(values[v])) continue;
      const double a = std::min(0.0, values[v]), b = std::max(0.0, values[v]);
      const double h = (kRowHeight - 6) / 2;
      body += rect(x_of(a), y + 3 + h * static_cast<double>(v), x_of(b) - x_of(a), h, colour(v),
                   c.rows[r] + " " + (v == 0 ? c.low_label : c.high_label) + ": " + tick_text(values[v]) + " " + c.unit);
    }
  }
  body += line(x_of(0), top, x_of(0), bottom, "#333");
  return header(bottom + kAxisHeight, c.title) + body + "</svg>\n";
}

}  // namespace podsim::output::svg
