#include "output/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "output/svg_chart.hpp"
#include "output/time_to_train_text.hpp"
#include "runtime/time_category.hpp"
#include "util/error.hpp"

namespace podsim::output {

namespace {

using svg::escape;

/// The time categories as their table column and their name (runtime/time_category.hpp),
/// for the stacked bars of a step's time.
std::vector<std::pair<std::string_view, std::string>> categories() {
  std::vector<std::pair<std::string_view, std::string>> out;
  for (std::size_t c = 0; c < runtime::kCategories; ++c) {
    const auto category = static_cast<runtime::TimeCategory>(c);
    out.emplace_back(runtime::category_column(category), runtime::category_name(category));
  }
  return out;
}

const Table* find(const ReportInput& in, const std::string& name) {
  for (const auto& t : in.tables) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

/// A column a figure reads: its name, the type it must hold ("real", "int", "text", as
/// Column::type_name says), and whether the figure does without it.
struct Need {
  std::string name;
  std::string_view type;
  bool optional = false;
};

/// What a section reads of table `t` of `in`: throws InputError naming the file, the table and
/// the column when `t` has fewer than `min_rows` rows, lacks a needed column, or holds another
/// type in one. Files podsim wrote always pass; a file edited or made by hand may not, and
/// must get a sentence rather than a crash.
void require(const ReportInput& in, const Table& t, const std::vector<Need>& needs, std::size_t min_rows = 0) {
  const std::string where = in.file + ": /" + t.name;
  for (const Need& need : needs) {
    const auto it =
        std::find_if(t.columns.begin(), t.columns.end(), [&](const Column& c) { return c.name == need.name; });
    if (it == t.columns.end()) {
      if (need.optional) continue;
      throw InputError(where + " has no column " + need.name + ", which podsim writes; the file is not one podsim "
                       "wrote, or was edited");
    }
    if (it->type_name() != need.type) {
      throw InputError(where + " column " + need.name + " holds " + std::string(it->type_name()) + " values; podsim "
                       "writes " + std::string(need.type) + " values there");
    }
  }
  if (t.rows() < min_rows) {
    throw InputError(where + " has " + std::to_string(t.rows()) + " rows; podsim writes at least " +
                     std::to_string(min_rows) + " (was the file edited?)");
  }
}

/// The columns of a step's time categories, all real.
std::vector<Need> category_needs() {
  std::vector<Need> out;
  for (const auto& [column, label] : categories()) out.push_back({std::string(column), "real"});
  return out;
}

/// `needs` and then `more`.
std::vector<Need> plus(std::vector<Need> needs, const std::vector<Need>& more) {
  needs.insert(needs.end(), more.begin(), more.end());
  return needs;
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "—";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// A number shown as `shown`, carrying the file's value for checking.
std::string checked(const Table& t, const std::string& column, std::size_t row, const std::string& shown) {
  const double v = t.reals(column)[row];
  return "<span class=\"checked\" data-table=\"" + t.name + "\" data-column=\"" + column + "\" data-row=\"" +
         std::to_string(row) + "\" data-value=\"" + exact(v) + "\">" + escape(shown) + "</span>";
}

std::string table_html(const Table& t, std::size_t max_rows) {
  std::string out = "<details><summary>/" + escape(t.name) + " — " + escape(t.description) + " (" +
                    std::to_string(t.rows()) + (t.rows() == 1 ? " row" : " rows") + ")</summary>\n<div class=\"scroll\"><table>\n<tr>";
  for (const auto& c : t.columns) {
    out += "<th>" + escape(c.name) + (c.unit.empty() || c.unit == "1" ? "" : " [" + escape(c.unit) + "]") + "</th>";
  }
  out += "</tr>\n";
  const std::size_t shown = std::min(t.rows(), max_rows);
  for (std::size_t r = 0; r < shown; ++r) {
    out += "<tr>";
    for (const auto& c : t.columns) out += "<td>" + escape(c.text(r, 6)) + "</td>";
    out += "</tr>\n";
  }
  out += "</table></div>";
  if (shown < t.rows()) {
    out += "<p class=\"note\">… " + std::to_string(t.rows() - shown) + " more rows: <code>podsim report FILE --csv " +
           escape(t.name) + "</code></p>";
  }
  return out + "</details>\n";
}

std::string section(const std::string& title, const std::string& body) {
  return "<section><h2>" + escape(title) + "</h2>\n" + body + "</section>\n";
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string summary_section(const ReportInput& in, const Table& s) {
  require(in, s,
          {{"step_time_s", "real"}, {"tokens_per_s", "real", true}, {"mfu", "real", true}, {"hfu", "real", true},
           {"memory_peak_bytes", "real", true}, {"hbm_capacity_bytes", "real", true},
           {"busiest_link_utilization", "real", true}, {"model", "text", true}, {"hardware", "text", true},
           {"topology", "text", true}, {"mesh", "text", true}},
          1);
  std::string cards = "<div class=\"cards\">";
  const auto card = [&](const std::string& label, const std::string& value) {
    cards += "<div class=\"card\"><div class=\"label\">" + escape(label) + "</div><div class=\"value\">" + value +
             "</div></div>";
  };
  card("step time", checked(s, "step_time_s", 0, fixed(s.reals("step_time_s")[0], 4) + " s"));
  if (s.has("tokens_per_s")) card("tokens/s", fixed(s.reals("tokens_per_s")[0], 0));
  if (s.has("mfu")) card("MFU", fixed(100 * s.reals("mfu")[0], 1) + " %");
  if (s.has("hfu")) card("HFU", fixed(100 * s.reals("hfu")[0], 1) + " %");
  if (s.has("memory_peak_bytes") && s.has("hbm_capacity_bytes")) {
    card("memory per chip", fixed(s.reals("memory_peak_bytes")[0] / kGiB, 1) + " / " +
                                fixed(s.reals("hbm_capacity_bytes")[0] / kGiB, 1) + " GiB");
  }
  if (s.has("busiest_link_utilization")) card("busiest link", fixed(100 * s.reals("busiest_link_utilization")[0], 1) + " %");
  if (s.has("time_to_train_s")) card("time to train", escape(span_text(s.reals("time_to_train_s")[0])));
  std::string what;
  for (const char* c : {"model", "hardware", "topology", "mesh"}) {
    if (s.has(c)) what += "<b>" + std::string(c) + "</b> " + escape(s.texts(c)[0]) + " &nbsp; ";
  }
  return section("Summary", "<p>" + what + "</p>" + cards + "</div>\n");
}

std::string breakdown_section(const ReportInput& in, const Table& b) {
  require(in, b, plus(category_needs(), {{"stage", "int"}, {"total_s", "real"}}), 1);
  svg::StackedBars chart;
  chart.title = "Where the time goes, per pipeline stage (every chip of a stage alike)";
  chart.unit = "s";
  for (const auto& [column, label] : categories()) chart.parts.push_back(label);
  for (std::size_t r = 0; r < b.rows(); ++r) {
    chart.rows.push_back("stage " + std::to_string(b.ints("stage")[r]));
    std::vector<double> row;
    for (const auto& [column, label] : categories()) row.push_back(b.reals(column)[r]);
    chart.values.push_back(row);
  }
  return section("Time per stage",
                 svg::render(chart) + "<p>Every bar sums to the step time, " +
                     checked(b, "total_s", 0, fixed(b.reals("total_s")[0], 4) + " s") + ".</p>\n");
}

std::string memory_section(const ReportInput& in, const Table& m) {
  require(in, m,
          {{"stage", "int"}, {"weights_bytes", "real"}, {"gradients_bytes", "real"}, {"optimizer_bytes", "real"},
           {"activations_bytes", "real"}, {"temporary_bytes", "real"}, {"total_bytes", "real"},
           {"capacity_bytes", "real"}},
          1);
  svg::StackedBars chart;
  chart.title = "Memory per chip, per stage";
  chart.unit = "GiB";
  chart.parts = {"weights", "gradients", "optimizer", "activations", "temporary"};
  std::size_t fullest = 0;
  for (std::size_t r = 0; r < m.rows(); ++r) {
    chart.rows.push_back("stage " + std::to_string(m.ints("stage")[r]));
    std::vector<double> row;
    for (const auto& p : chart.parts) row.push_back(m.reals(p + "_bytes")[r] / kGiB);
    chart.values.push_back(row);
    if (m.reals("total_bytes")[r] > m.reals("total_bytes")[fullest]) fullest = r;
  }
  if (m.rows() > 0) {
    chart.limit = m.reals("capacity_bytes")[0] / kGiB;
    chart.limit_label = "HBM " + fixed(chart.limit, 1) + " GiB";
  }
  return section("Memory", svg::render(chart) + "<p>The fullest stage holds " +
                               checked(m, "total_bytes", fullest, fixed(m.reals("total_bytes")[fullest] / kGiB, 2) + " GiB") +
                               " per chip.</p>\n");
}

std::string critical_path_section(const ReportInput& in, const Table& c) {
  require(in, c, {{"category", "text"}, {"operation", "text"}, {"duration_s", "real"}, {"stage", "int"}});
  std::map<std::string, double> by_what;
  double total = 0;
  std::size_t longest = 0;
  for (std::size_t r = 0; r < c.rows(); ++r) {
    by_what[c.texts("category")[r] + " · " + c.texts("operation")[r]] += c.reals("duration_s")[r];
    total += c.reals("duration_s")[r];
    if (c.reals("duration_s")[r] > c.reals("duration_s")[longest]) longest = r;
  }
  std::vector<std::pair<std::string, double>> ranked(by_what.begin(), by_what.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (ranked.size() > 12) ranked.resize(12);
  svg::StackedBars chart;
  chart.title = "What limits the step: time on the critical path";
  chart.unit = "s";
  chart.parts = {"on the critical path"};
  for (const auto& [what, seconds] : ranked) {
    chart.rows.push_back(what);
    chart.values.push_back({seconds});
  }
  std::string body = svg::render(chart) + "<p>The path is " + fixed(total, 4) +
                     " s long (the step time). Shortening one of these by x shortens the step by at most x.";
  if (c.rows() > 0) {
    body += " Its longest piece: " + escape(c.texts("operation")[longest]) + " on stage " +
            std::to_string(c.ints("stage")[longest]) + ", " +
            checked(c, "duration_s", longest, fixed(c.reals("duration_s")[longest], 4) + " s") + ".";
  }
  return section("Critical path", body + "</p>\n");
}

std::string links_section(const ReportInput& in, const Table& l) {
  require(in, l, {{"utilization", "real"}, {"link", "int"}, {"axis", "text"}, {"src", "int"}, {"dst", "int"}});
  std::vector<std::size_t> order(l.rows());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return l.reals("utilization")[a] > l.reals("utilization")[b]; });
  if (order.size() > 15) order.resize(15);
  svg::StackedBars chart;
  chart.title = "The busiest links: share of the step spent serialising";
  chart.unit = "% of the step";
  chart.parts = {"busy"};
  for (std::size_t r : order) {
    chart.rows.push_back("link " + std::to_string(l.ints("link")[r]) + " " + l.texts("axis")[r] + " (" +
                         std::to_string(l.ints("src")[r]) + "→" + std::to_string(l.ints("dst")[r]) + ")");
    chart.values.push_back({100 * l.reals("utilization")[r]});
  }
  chart.limit = 100;
  chart.limit_label = "100 %";
  std::string body = svg::render(chart) + "<p>" + std::to_string(l.rows()) + " links carried traffic.";
  if (!order.empty()) {
    body += " The busiest is busy " +
            checked(l, "utilization", order.front(), fixed(100 * l.reals("utilization")[order.front()], 1) + " %") +
            " of the step.";
  }
  return section("Links", body + "</p>\n");
}

/// "tp=4 micro_batch=2": a sweep point by its swept values.
std::string point_label(const Table& t, std::size_t row) {
  std::string label;
  for (const auto& c : t.columns) {
    if (c.name.rfind("swept_", 0) != 0) continue;
    if (!label.empty()) label += ' ';
    label.append(c.name, 6).append("=").append(c.texts()[row]);  // appends: GCC 12's -Wrestrict misfires on +
  }
  return label.empty() ? "point " + std::to_string(row) : label;
}

std::string sweep_section(const ReportInput& in, const Table& s) {
  std::vector<Need> needs = plus(category_needs(), {{"feasible", "int"}, {"step_time_s", "real"}});
  for (const auto& c : s.columns) {
    if (c.name.rfind("swept_", 0) == 0) needs.push_back({c.name, "text"});
  }
  require(in, s, needs);
  std::vector<std::size_t> feasible;
  for (std::size_t r = 0; r < s.rows(); ++r) {
    if (s.ints("feasible")[r] != 0) feasible.push_back(r);
  }
  std::stable_sort(feasible.begin(), feasible.end(),
                   [&](std::size_t a, std::size_t b) { return s.reals("step_time_s")[a] < s.reals("step_time_s")[b]; });
  const std::size_t simulated = feasible.size();
  if (feasible.size() > 20) feasible.resize(20);
  svg::StackedBars chart;
  chart.title = "The fastest feasible points: step time by category";
  chart.unit = "s";
  for (const auto& [column, label] : categories()) chart.parts.push_back(label);
  for (std::size_t r : feasible) {
    chart.rows.push_back(point_label(s, r));
    std::vector<double> row;
    for (const auto& [column, label] : categories()) row.push_back(s.reals(column)[r]);
    chart.values.push_back(row);
  }
  std::string body = svg::render(chart) + "<p>" + std::to_string(s.rows()) + " points, " + std::to_string(simulated) +
                     " simulated, " + std::to_string(s.rows() - simulated) + " infeasible (their reasons are in the table).";
  if (!feasible.empty()) {
    body += " The fastest takes " +
            checked(s, "step_time_s", feasible.front(), fixed(s.reals("step_time_s")[feasible.front()], 4) + " s") + ".";
  }
  return section("Sweep", body + "</p>\n");
}

/// The ten best layouts, in rank order, as the plan's text prints them.
std::string ranked_layouts_html(const Table& p) {
  std::vector<std::size_t> ranked;
  for (std::size_t r = 0; r < p.rows(); ++r) {
    if (p.ints("rank")[r] > 0 && p.ints("rank")[r] <= 10) ranked.push_back(r);
  }
  std::sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) { return p.ints("rank")[a] < p.ints("rank")[b]; });
  if (ranked.empty()) return "<p>No layout can run on these chips: the reasons are in the table below.</p>\n";
  const std::vector<std::pair<std::string, std::string>> cols{
      {"rank", "#"}, {"step_time_s", "step s"}, {"mfu", "MFU %"}, {"memory_peak_bytes", "GiB/chip"}, {"dp", "dp"},
      {"tp", "tp"}, {"pp", "pp"}, {"schedule", "schedule"}, {"micro_batch", "mb"}, {"zero", "ZeRO"},
      {"recompute", "recompute"}, {"network", "network"}, {"largest_overhead", "largest overhead"}};
  std::string out = "<table><tr>";
  for (const auto& [name, label] : cols) {
    if (p.has(name)) out += "<th>" + escape(label) + "</th>";
  }
  out += "</tr>\n";
  for (std::size_t r : ranked) {
    out += "<tr>";
    for (const auto& [name, label] : cols) {
      if (!p.has(name)) continue;
      std::string cell;
      if (name == "step_time_s") cell = fixed(p.reals(name)[r], 3);
      else if (name == "mfu") cell = fixed(100 * p.reals(name)[r], 1);
      else if (name == "memory_peak_bytes") cell = fixed(p.reals(name)[r] / kGiB, 1);
      else if (name == "schedule" && p.has("pp") && p.ints("pp")[r] == 1) cell = "no pipeline";
      else cell = p.column(name).text(r, 6);
      out += "<td>" + escape(cell) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string plan_section(const ReportInput& in, const Table& p) {
  require(in, p,
          {{"step_time_s", "real"}, {"memory_peak_bytes", "real"}, {"verdict", "text"}, {"rank", "int"},
           {"dp", "int"}, {"tp", "int"}, {"pp", "int"}, {"zero", "int"}, {"network", "text"}});
  svg::Scatter chart;
  chart.title = "Every layout: step time against memory per chip";
  chart.x_label = "memory per chip (GiB)";
  chart.y_label = "step time (s)";
  chart.groups = {"simulated", "does not fit in HBM (not simulated; drawn at 0 s)"};
  std::vector<svg::Scatter::Point> under;  // drawn first, beneath the simulated layouts
  // Plans searched by branch and bound (files since 2026-12-06) have layouts pruned by a lower
  // bound of their step: drawn at that bound, which their step is above.
  const bool bounded = p.has("lower_bound_s");
  if (bounded) chart.groups.push_back("pruned (at its bound)");
  std::size_t winner = p.rows();
  std::size_t infeasible = 0, pruned = 0;
  std::set<long long> drawn;  // does-not-fit points drawn, by memory in half GiB
  std::set<std::pair<long long, long long>> drawn_pruned;  // by memory in half GiB and bound in 1 %
  for (std::size_t r = 0; r < p.rows(); ++r) {
    const double step = p.reals("step_time_s")[r];
    const double gib = p.reals("memory_peak_bytes")[r] / kGiB;
    if (!std::isfinite(step)) {
      ++infeasible;
      // Drawn at 0 s, they overlap: one point per 0.5 GiB is the same picture (and a page
      // of thousands of circles less).
      if (p.texts("verdict")[r] == "does not fit" && std::isfinite(gib) && drawn.insert(std::llround(2 * gib)).second) {
        chart.points.push_back({gib, 0, 1, false});
      }
      if (bounded && p.texts("verdict")[r] == "pruned") {
        ++pruned;
        const double bound = p.reals("lower_bound_s")[r];
        if (std::isfinite(gib) && std::isfinite(bound) && bound > 0 &&
            drawn_pruned.insert({std::llround(2 * gib), std::llround(100 * std::log(bound))}).second) {
          under.push_back({gib, bound, 2, false});
        }
      }
      continue;
    }
    chart.points.push_back({gib, step, 0, p.ints("rank")[r] == 1});
    if (p.ints("rank")[r] == 1) winner = r;
  }
  chart.points.insert(chart.points.begin(), under.begin(), under.end());
  std::string body = svg::render(chart) + "<p>" + std::to_string(p.rows()) + " layouts enumerated, " +
                     std::to_string(p.rows() - infeasible) + " simulated (the ring marks the winner)" +
                     (pruned > 0 ? ", " + std::to_string(pruned) +
                                       " pruned: no network runs their step faster than a lower bound (where they are "
                                       "drawn) that is slower than every step the plan ranks exactly"
                                 : std::string()) +
                     ".";
  if (winner < p.rows()) {
    body += " The winner, dp " + std::to_string(p.ints("dp")[winner]) + " × tp " + std::to_string(p.ints("tp")[winner]) +
            " × pp " + std::to_string(p.ints("pp")[winner]) + " (ZeRO-" + std::to_string(p.ints("zero")[winner]) +
            "), takes " + checked(p, "step_time_s", winner, fixed(p.reals("step_time_s")[winner], 4) + " s") + " on the " +
            escape(p.texts("network")[winner]) + " network.";
  }
  body += "</p>\n" + ranked_layouts_html(p);
  if (const Table* v = find(in, "plan_verdicts"); v != nullptr && v->has("family") && v->has("verdict")) {
    body += "<ul>";
    for (std::size_t r = 0; r < v->rows(); ++r) {
      // A family's verdict may hold several lines (pure data parallelism with and without ZeRO).
      const std::string& text = v->texts("verdict")[r];
      for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        if (end > at) body += "<li>" + escape(text.substr(at, end - at)) + "</li>";
        at = end + 1;
      }
    }
    body += "</ul>\n";
  }
  return section("Plan", body);
}

std::string whatif_section(const ReportInput& in, const Table& w) {
  require(in, w,
          {{"knob", "text"}, {"step_change_percent", "real"}, {"change_percent", "real"}, {"base_value", "text"},
           {"value", "text"}});
  svg::Tornado chart;
  chart.title = "Which knob buys most: the step time when one knob changes";
  chart.unit = "%";
  chart.low_label = "knob lower";
  chart.high_label = "knob higher";
  std::size_t best = w.rows();
  for (std::size_t r = 0; r < w.rows(); ++r) {
    const std::string& knob = w.texts("knob")[r];
    if (chart.rows.empty() || chart.rows.back() != knob) {
      chart.rows.push_back(knob);
      chart.low.push_back(std::nan(""));
      chart.high.push_back(std::nan(""));
    }
    const double change = w.reals("step_change_percent")[r];
    (w.reals("change_percent")[r] < 0 ? chart.low : chart.high).back() = change;
    if (std::isfinite(change) && (best == w.rows() || change < w.reals("step_change_percent")[best])) best = r;
  }
  std::string body = svg::render(chart) + "<p>Knobs ranked by the elasticity of the step time.";
  if (best < w.rows() && w.reals("step_change_percent")[best] < 0) {
    body += " The largest gain: " + escape(w.texts("knob")[best]) + " " + escape(w.texts("base_value")[best]) + " → " +
            escape(w.texts("value")[best]) + " shortens the step by " +
            checked(w, "step_change_percent", best, fixed(-w.reals("step_change_percent")[best], 2) + " %") + ".";
  }
  return section("What if", body + "</p>\n");
}

std::string collectives_section(const ReportInput& in, const Table& c) {
  require(in, c,
          {{"op", "text"}, {"algorithm", "text"}, {"network", "text"}, {"bytes", "int"}, {"busbw_Bps", "real"}});
  svg::Scatter chart;
  chart.title = "Bus bandwidth against message size";
  chart.x_label = "bytes per chip";
  chart.y_label = "busbw (GB/s)";
  chart.log_x = true;
  chart.lines = true;
  std::size_t top = 0;
  for (std::size_t r = 0; r < c.rows(); ++r) {
    const std::string group = c.texts("op")[r] + " · " + c.texts("algorithm")[r] + " · " + c.texts("network")[r];
    const auto it = std::find(chart.groups.begin(), chart.groups.end(), group);
    const std::size_t g = static_cast<std::size_t>(it - chart.groups.begin());
    if (it == chart.groups.end()) chart.groups.push_back(group);
    chart.points.push_back({static_cast<double>(c.ints("bytes")[r]), c.reals("busbw_Bps")[r] / 1e9, g, false});
    if (c.reals("busbw_Bps")[r] > c.reals("busbw_Bps")[top]) top = r;
  }
  std::string body = svg::render(chart);
  if (c.rows() > 0) {
    body += "<p>The highest bus bandwidth: " +
            checked(c, "busbw_Bps", top, fixed(c.reals("busbw_Bps")[top] / 1e9, 2) + " GB/s") + " at " +
            std::to_string(c.ints("bytes")[top]) + " bytes.</p>\n";
  }
  return section("Collectives", body);
}

constexpr const char* kStyle = R"(body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
.meta{color:#555;font-size:.9em}.cards{display:flex;flex-wrap:wrap;gap:.8em}
.card{border:1px solid #ddd;border-radius:6px;padding:.5em .9em;min-width:9em}.card .label{color:#666;font-size:.85em}
.card .value{font-size:1.25em;font-weight:bold}table{border-collapse:collapse;font-size:.8em}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:right;white-space:nowrap}th{background:#f4f4f4}
.scroll{overflow-x:auto}details{margin:.4em 0}summary{cursor:pointer}pre{background:#f8f8f8;padding:.6em;overflow-x:auto;font-size:.8em}
.note{color:#666;font-size:.85em}svg{max-width:100%;height:auto})";

}  // namespace

std::string html_report(const ReportInput& in, std::size_t max_rows) {
  std::string kind = "result";
  for (const auto& [table, name] : std::vector<std::pair<std::string, std::string>>{
           {"summary", "run"}, {"whatif", "what-if study"}, {"plan", "plan"}, {"sweep", "sweep"},
           {"collectives", "collective benchmark"}}) {
    if (find(in, table) != nullptr) {
      kind = name;
      break;
    }
  }
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>podsim " + escape(kind) +
                     ": " + escape(in.file) + "</title>\n<style>" + kStyle + "</style></head><body>\n<h1>podsim " +
                     escape(kind) + ": " + escape(in.file) + "</h1>\n<p class=\"meta\">written by podsim " +
                     escape(in.podsim_version) + " · <code>" + escape(in.command_line) + "</code></p>\n";
  if (const Table* t = find(in, "summary")) page += summary_section(in, *t);
  if (const Table* t = find(in, "breakdown")) page += breakdown_section(in, *t);
  if (const Table* t = find(in, "critical_path")) page += critical_path_section(in, *t);
  if (const Table* t = find(in, "memory")) page += memory_section(in, *t);
  if (const Table* t = find(in, "links"); t != nullptr && t->rows() > 0) page += links_section(in, *t);
  if (const Table* t = find(in, "whatif")) {
    page += whatif_section(in, *t);
  } else if (const Table* s = find(in, "sweep")) {
    page += sweep_section(in, *s);
  }
  if (const Table* t = find(in, "plan")) page += plan_section(in, *t);
  if (const Table* t = find(in, "collectives")) page += collectives_section(in, *t);
  std::string tables;
  for (const auto& t : in.tables) tables += table_html(t, max_rows);
  page += section("Tables", tables);
  page += section("Configuration", "<details><summary>the resolved configuration (config_yaml)</summary><pre>" +
                                        escape(in.config_yaml) + "</pre></details>\n");
  return page + "</body></html>\n";
}

}  // namespace podsim::output
