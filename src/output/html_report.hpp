#pragma once

#include <string>
#include <vector>

#include "output/table.hpp"

namespace podsim::output {

/// What a podsim file holds, as the HTML report shows it.
struct ReportInput {
  std::string file;  ///< as the page names it
  std::string podsim_version, command_line, config_yaml;
  std::vector<Table> tables;  ///< in file order
};

/// One self-contained HTML page (inline CSS and SVG, no script, nothing fetched) for a
/// run, a sweep, a plan, a what-if study or a collective benchmark: the headline numbers,
/// a figure per table that has one (time per stage and category, memory per stage against
/// HBM, the critical path, the busiest links, the fastest sweep points, the plan's step
/// time against memory, the what-if tornado, bus bandwidth against size), every table
/// (long ones cut at `max_rows`), and the resolved configuration. Each figure's section
/// carries one of its numbers as <span data-table data-column data-row data-value> so a
/// test can check the page against the file.
std::string html_report(const ReportInput& input, std::size_t max_rows = 200);

}  // namespace podsim::output
