#include "cli/validate_command.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "cli/collective_json.hpp"
#include "cli/named_file.hpp"
#include "cli/validate_cross.hpp"
#include "output/json_writer.hpp"
#include "output/step_text.hpp"
#include "output/text_table.hpp"
#include "runtime/step_simulation.hpp"
#include "util/error.hpp"
#include "util/suggest.hpp"
#include "util/units.hpp"
#include "validation/validation_run.hpp"

namespace podsim::cli {

namespace {

using units::format_fixed;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// Enough significant digits to compare with the published figure.
std::string value(double v) { return format_fixed(v, std::fabs(v) >= 100 ? 1 : std::fabs(v) >= 1 ? 2 : 4); }

void print_json(const validation::ValidationReport& r) {
  output::JsonWriter j(2);
  j.begin_object();
  j.key("results");
  j.begin_array();
  for (const auto& row : r.rows) {
    j.begin_object();
    j.member("id", row.id);
    j.member("family", row.family);
    j.member("metric", row.metric);
    j.member("measured", row.measured);
    j.member("predicted", row.predicted);
    j.member("error", row.error);
    j.member("source", row.source);
    j.member("layout", row.layout);
    j.member("reports_run", row.reports_run);
    j.member("mfu", row.mfu);
    j.member("fits", row.fits);
    j.member("memory_gib", row.memory_bytes / kGiB);
    j.member("capacity_gib", row.capacity_bytes / kGiB);
    if (row.collective) {  // what a collective row ran, with `podsim collective --json`'s keys
      j.key("collective");
      j.begin_object();
      j.member("op", collectives::op_name(row.collective->op));
      write_timing_members(j, row.collective->timing);
      j.end_object();
    }
    j.key("assumptions");
    j.begin_array();
    for (const auto& a : row.assumptions) j.value(a);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.key("skipped_rows");
  j.begin_array();
  for (const auto& s : r.skipped) {
    j.begin_object();
    j.member("id", s.id);
    j.member("reason", s.reason);
    j.end_object();
  }
  j.end_array();
  j.key("mape_by_family");
  j.begin_object();
  for (const auto& [family, mape] : r.mape_by_family) j.member(family, mape);
  j.end_object();
  j.key("mape_by_source");
  j.begin_object();
  for (const auto& [source, mape] : r.mape_by_source) j.member(source, mape);
  j.end_object();
  j.member("mape", r.mape);
  j.member("rows", r.rows.size());
  j.member("skipped", r.skipped.size());
  j.end_object();
  std::cout << j.str() << "\n";
}

/// The row `--explain` names, or an input error that suggests the closest id.
validation::CsvRow row_named(const std::vector<validation::CsvRow>& rows, const std::string& id,
                             const std::filesystem::path& data) {
  std::vector<std::string> ids;
  for (const auto& row : rows) {
    if (row.at("id") == id) return row;
    ids.push_back(row.at("id"));
  }
  throw InputError("--explain: " + data.string() + " has no row with id \"" + id + "\"" + did_you_mean(id, ids));
}

/// What a collective row ran: the algorithm (and NCCL's protocol and its model's time, on a GPU
/// cluster) and what the links made of it, as `podsim collective` prints one size.
void print_collective(const std::string& id, const validation::RowResult::CollectiveRun& run) {
  const collectives::CollectiveTiming& t = run.timing;
  std::cout << "\n" << id << " is a collective benchmark, so there is no training step. What podsim ran:\n"
            << "  " << collectives::op_name(run.op) << " of " << units::format_bytes(double(t.bytes)) << " per chip, "
            << t.groups << (t.groups == 1 ? " group" : " groups") << " of " << t.group_size << " chips\n"
            << "  algorithm " << collectives::algorithm_name(t.algorithm);
  if (const std::string protocol = protocol_text(t); !protocol.empty()) std::cout << " · NCCL protocol " << protocol;
  if (t.nccl_predicted_s >= 0) std::cout << " · NCCL's own model " << units::format_seconds(t.nccl_predicted_s);
  std::cout << "\n  simulated " << units::format_seconds(t.time_s) << " · algbw " << units::format_bandwidth(t.algbw_Bps)
            << " · busbw " << units::format_bandwidth(t.busbw_Bps) << " · busiest link "
            << units::format_fixed(100 * t.max_link_utilization, 1) << " %\n";
}

/// The step of the one row `--explain` validated, as `podsim run` prints it.
void print_step(const validation::ValidationReport& r) {
  if (r.rows.empty()) return;  // skipped: print_text said why
  const auto& row = r.rows.front();
  if (!row.scenario) {
    if (row.collective) print_collective(row.id, *row.collective);
    return;
  }
  const runtime::Scenario& s = *row.scenario;
  const runtime::StepReport step = runtime::simulate_step(s, runtime::Recording::kCriticalPath);
  const topology::Topology topo(s.topology);
  std::cout << "\nthe step podsim simulated for " << row.id << ":\n"
            << output::step_text(s, step, topo, output::RunLabels{row.id, s.topology.name});
}

void print_text(const validation::ValidationReport& r, const std::string& data) {
  std::ostringstream out;
  const std::size_t total = r.rows.size() + r.skipped.size();
  out << "podsim validate · " << data << " · " << total << (total == 1 ? " row: " : " rows: ") << r.rows.size()
      << " simulated, " << r.skipped.size() << " skipped\n\n";
  output::TextTable t({"id", "hardware", "metric", "measured", "predicted", "error"});
  t.set_align(0, output::Align::kLeft);
  t.set_align(1, output::Align::kLeft);
  t.set_align(2, output::Align::kLeft);
  std::map<std::string, std::string> by_assumption;
  for (const auto& row : r.rows) {
    std::string error = row.error >= 0 ? "+" : "";
    error += format_fixed(100 * row.error, 1);
    error += " %";
    t.add_row({row.id, row.family, row.metric, value(row.measured), value(row.predicted), error});
    for (const auto& a : row.assumptions) append_joined(by_assumption[a], ", ", row.id);
  }
  out << t.render();
  if (!by_assumption.empty()) {
    out << "\nwhere the rows are silent, podsim chose:\n";
    for (const auto& [assumption, ids] : by_assumption) out << "  " << assumption << "  [" << ids << "]\n";
  }
  if (!r.skipped.empty()) {
    out << "\nrows podsim cannot express:\n";
    for (const auto& s : r.skipped) out << "  " << s.id << " (line " << s.line << "): " << s.reason << "\n";
  }
  output::TextTable mem({"id", "layout", "HBM needed", "usable", ""});
  mem.set_align(0, output::Align::kLeft);
  mem.set_align(1, output::Align::kLeft);
  mem.set_align(4, output::Align::kLeft);
  bool any_run = false;
  for (const auto& row : r.rows) {
    if (!row.reports_run) continue;
    any_run = true;
    mem.add_row({row.id, row.layout, format_fixed(row.memory_bytes / kGiB, 1) + " GiB",
                 format_fixed(row.capacity_bytes / kGiB, 1) + " GiB", row.fits ? "fits" : "DOES NOT FIT"});
  }
  if (any_run) out << "\nmemory of the runs (fullest chip):\n" << mem.render();
  if (r.rows.empty()) {  // no error to average: say so rather than print 0.0 %
    out << "\nno row was simulated, so there is no error to report\n";
    std::cout << out.str();
    return;
  }
  out << "\nmean absolute percentage error:";
  std::map<std::string, int> counts;
  std::map<std::string, int> source_counts;
  for (const auto& row : r.rows) {
    ++counts[row.family];
    ++source_counts[row.source];
  }
  for (const auto& [family, mape] : r.mape_by_family) {
    out << "  " << family << " " << format_fixed(100 * mape, 1) << " % (" << counts[family] << ")";
  }
  out << "  · overall " << format_fixed(100 * r.mape, 1) << " % (" << r.rows.size() << " rows)\n";
  out << "by source:";
  for (const auto& [source, mape] : r.mape_by_source) {
    out << "  " << source << " " << format_fixed(100 * mape, 1) << " % (" << source_counts[source] << ")";
  }
  out << "\n";
  std::cout << out.str();
}

/// --cross: refits each end-to-end constant without each source and prints the errors; one
/// line on stderr per fit and per source predicted.
void run_cross(const std::vector<validation::CsvRow>& rows, const std::filesystem::path& root,
               const std::filesystem::path& data, const ValidateOptions& options, const Invocation& invocation) {
  const auto fitted = validation::read_fitted(root);
  std::string last;
  const bool progress = invocation.prints() && !options.quiet;
  const auto report = validation::cross_validate(
      rows, validation::load_catalog(root), data.filename().string(), fitted, [&](const std::string& what) {
        if (progress && what != last) std::cerr << "[validate --cross] " << what << "\n";
        last = what;
      });
  if (!invocation.prints()) return;
  if (options.json) {
    print_cross_json(report);
  } else {
    print_cross_text(report);
  }
}

}  // namespace

void run_validate(const ValidateOptions& options, const Invocation& invocation) {
  const std::filesystem::path root = repository_root(options.root);
  const std::filesystem::path data =
      options.data.empty() ? root / "configs" / "validation" / "published.csv" : std::filesystem::path(options.data);
  auto rows = validation::read_csv(data, validation::published_columns());
  if (options.cross) {
    run_cross(rows, root, data, options, invocation);
    return;
  }
  if (!options.explain.empty()) rows = {row_named(rows, options.explain, data)};
  const auto report = validation::validate(rows, validation::load_catalog(root));
  if (!invocation.prints()) return;
  if (options.json) {
    print_json(report);
  } else {
    print_text(report, options.data.empty() ? "configs/validation/published.csv" : options.data);
  }
  if (!options.explain.empty() && !options.json) print_step(report);
}

}  // namespace podsim::cli
