#include "cli/validate_cross.hpp"

#include <cmath>
#include <iostream>
#include <sstream>

#include "output/json_writer.hpp"
#include "output/text_table.hpp"
#include "util/units.hpp"

namespace podsim::cli {

namespace {

std::string pct(double x) { return std::isnan(x) ? "-" : units::format_fixed(100 * x, 1); }

void add_row(output::TextTable& t, const std::string& name, const validation::CrossSummary& s) {
  t.add_row({name, std::to_string(s.rows), pct(s.in_sample), pct(s.loso), pct(s.spread), std::to_string(s.baseline_rows),
             pct(s.podsim_on_baseline_rows), pct(s.baseline)});
}

/// NaN (no such rows) is written as null.
void summary_json(output::JsonWriter& j, const validation::CrossSummary& s) {
  auto real = [&](const char* name, double v) { j.member(name, v); };
  j.begin_object();
  j.member("rows", s.rows);
  real("in_sample", s.in_sample);
  real("leave_one_source_out", s.loso);
  real("within_source_spread", s.spread);
  j.member("spread_rows", s.spread_rows);
  j.member("baseline_rows", s.baseline_rows);
  real("podsim_on_baseline_rows", s.podsim_on_baseline_rows);
  real("baseline", s.baseline);
  j.end_object();
}

}  // namespace

void print_cross_text(const validation::CrossReport& r) {
  std::ostringstream out;
  out << "podsim validate --cross · " << r.data << " · " << r.in_sample.rows.size() << " rows simulated, "
      << r.in_sample.skipped.size() << " skipped\n\n";
  output::TextTable t({"", "rows", "in sample", "LOSO", "spread", "rows", "podsim", "1 MFU"});
  t.set_align(0, output::Align::kLeft);
  t.add_row({"by source", "", "", "", "", "", "", ""});
  for (const auto& [source, s] : r.by_source) {
    add_row(t, "  " + source + (r.not_cross_validated.count(source) != 0 ? " *" : ""), s);
  }
  t.add_row({"by family", "", "", "", "", "", "", ""});
  for (const auto& [family, s] : r.by_family) add_row(t, "  " + family, s);
  add_row(t, "overall", r.overall);
  out << t.render();
  out << "\nMAPE in %. LOSO: each source's rows predicted with every fitted end-to-end efficiency refitted without\n"
         "them (configs/validation/fitted.csv says what was fitted where). spread: mean |LOSO error - its\n"
         "source's mean| over the training rows of sources with 3 or more (the error of comparing runs of one\n"
         "stack and machine; podsim plan's tie band). Right: the training rows with a step, podsim in sample\n"
         "against one constant MFU per family fitted in sample (";
  bool first = true;
  for (const auto& [family, mfu] : r.baseline_mfu) {
    out << (first ? "" : ", ") << family << " " << units::format_fixed(100 * mfu, 1) << " %";
    first = false;
  }
  out << ").\n";
  if (!r.not_cross_validated.empty()) {
    out << "* not cross-validated: a constant (NCCL's launch cost) is fitted on these rows alone.\n";
  }
  out << "efficiencies fitted without each source:\n";
  for (const auto& [source, chosen] : r.constants_without) {
    out << "  " << source << ":";
    for (const auto& [family, value] : chosen) out << "  " << family << " " << units::format_fixed(value, 3);
    out << "\n";
  }
  std::cout << out.str();
}

void print_cross_json(const validation::CrossReport& r) {
  output::JsonWriter j(2);
  j.begin_object();
  j.member("data", r.data);
  j.key("overall");
  summary_json(j, r.overall);
  for (const auto* table : {&r.by_source, &r.by_family}) {
    j.key(table == &r.by_source ? "by_source" : "by_family");
    j.begin_object();
    for (const auto& [name, s] : *table) {
      j.key(name);
      summary_json(j, s);
    }
    j.end_object();
  }
  j.key("baseline_mfu");
  j.begin_object();
  for (const auto& [family, mfu] : r.baseline_mfu) j.member(family, mfu);
  j.end_object();
  j.key("constants_without_source");
  j.begin_object();
  for (const auto& [source, chosen] : r.constants_without) {
    j.key(source);
    j.begin_object();
    for (const auto& [family, value] : chosen) j.member(family, value);
    j.end_object();
  }
  j.end_object();
  j.key("not_cross_validated");
  j.begin_array();
  for (const auto& s : r.not_cross_validated) j.value(s);
  j.end_array();
  j.key("rows");
  j.begin_array();
  for (const auto& row : r.in_sample.rows) {
    j.begin_object();
    j.member("id", row.id);
    j.member("family", row.family);
    j.member("source", row.source);
    j.member("in_sample", row.error);
    if (const auto l = r.loso_error.find(row.id); l != r.loso_error.end()) j.member("leave_one_source_out", l->second);
    if (const auto b = r.baseline_error.find(row.id); b != r.baseline_error.end()) j.member("baseline", b->second);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  std::cout << j.str() << "\n";
}

}  // namespace podsim::cli
