#include "cli/report_command.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "output/hdf5_reader.hpp"
#include "output/html_report.hpp"
#include "output/text_table.hpp"
#include "util/error.hpp"
#include "util/input_file.hpp"
#include "util/suggest.hpp"

namespace podsim::cli {

namespace {

/// A value as text: reals with enough digits for what a reader needs.
std::string cell(const output::Column& c, std::size_t row) { return c.text(row, 10); }

std::string header(const output::Column& c) {
  return c.unit.empty() || c.unit == "1" ? c.name : c.name + " [" + c.unit + "]";
}

/// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out(1, '"');
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
  return out;
}

std::string render_csv(const output::Table& t) {
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (c > 0) out += ',';
    out += csv_field(t.columns[c].name);
  }
  out += '\n';
  for (std::size_t r = 0; r < t.rows(); ++r) {
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      if (c > 0) out += ',';
      out += csv_field(cell(t.columns[c], r));
    }
    out += '\n';
  }
  return out;
}

std::string render_text(const output::Table& t, std::size_t max_rows) {
  std::ostringstream out;
  out << "/" << t.name << " — " << t.description << " (" << t.rows() << (t.rows() == 1 ? " row" : " rows") << ")\n";
  if (t.rows() == 1) {
    // One row of many columns reads better as name = value lines.
    output::TextTable table({"", ""});
    for (const auto& c : t.columns) table.add_row({header(c), cell(c, 0)});
    out << table.render();
    return out.str();
  }
  std::vector<std::string> headers;
  for (const auto& c : t.columns) headers.push_back(header(c));
  output::TextTable table(headers);
  const std::size_t shown = std::min(t.rows(), max_rows);
  for (std::size_t r = 0; r < shown; ++r) {
    std::vector<std::string> row;
    for (const auto& c : t.columns) row.push_back(cell(c, r));
    table.add_row(std::move(row));
  }
  out << table.render();
  if (shown < t.rows()) out << "… " << t.rows() - shown << " more rows (--csv " << t.name << " prints them all)\n";
  return out.str();
}

}  // namespace

void run_report(const ReportOptions& options, const Invocation& invocation) {
  if (!invocation.prints()) return;
  // Before anything opens it: a FIFO would block, a device never end.
  (void)check_input_file(options.file, options.file);
  if (!is_hdf5_file(options.file)) {
    // read_input_file says what the file is instead (YAML text, binary…).
    (void)read_input_file(options.file, options.file);
    throw InputError(options.file + ": not an HDF5 file; podsim report reads the results podsim writes with -o");
  }
  const std::vector<std::string> names = output::table_names(options.file);
  if (options.scenario) {
    const std::string yaml = output::read_hdf5(options.file, "").config_yaml;
    if (yaml.empty()) {
      throw InputError(options.file + ": it holds no scenario (its config_yaml attribute is missing or empty), so "
                                      "there is nothing to print; was the file written by podsim?");
    }
    std::cout << yaml;
    return;
  }
  if (!options.html.empty()) {
    const auto claim = claim_output(options.html, {config::InputRecord{options.file, options.file, ""}}, invocation);
    const output::StoredFile info = output::read_hdf5(options.file, "");
    output::ReportInput input{options.file, info.podsim_version, info.command_line, info.config_yaml, {}};
    for (const auto& name : names) input.tables.push_back(*output::read_hdf5(options.file, name).table);
    claim->write(output::html_report(input));
    std::cout << "wrote " << options.html << " (" << names.size() << " tables)\n";
    return;
  }
  if (!options.csv.empty()) {
    if (std::find(names.begin(), names.end(), options.csv) == names.end()) {
      throw InputError("--csv " + options.csv + ": " + options.file + " has no table \"" + options.csv + "\"" +
                       did_you_mean(options.csv, names) + "; it has " + join_choices(names));
    }
    std::cout << render_csv(*output::read_hdf5(options.file, options.csv).table);
    return;
  }
  const output::StoredFile info = output::read_hdf5(options.file, "");
  std::cout << options.file << ": written by podsim " << info.podsim_version << "\n";
  for (const auto& name : names) std::cout << "\n" << render_text(*output::read_hdf5(options.file, name).table, options.max_rows);
}

}  // namespace podsim::cli
