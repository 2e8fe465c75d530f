#pragma once

#include <string>

#include "cli/invocation.hpp"

namespace podsim::cli {

/// `podsim report FILE.h5`: a podsim result read back.
struct ReportOptions {
  std::string file;
  std::string csv;        ///< --csv TABLE: that table as CSV on stdout, every row
  bool scenario = false;  ///< --scenario: the resolved configuration the file was made from
  std::string html;       ///< --html PAGE: one self-contained HTML page of the file (figures inline)
  std::size_t max_rows = 40;  ///< rows of a long table shown as text (--rows)
};

/// Prints the file's tables as text (a one-row table as name/value lines), or one table as
/// CSV, or its configuration. Throws InputError for a file that is not a podsim result or a
/// table it does not have (with the names it has).
void run_report(const ReportOptions& options, const Invocation& invocation);

}  // namespace podsim::cli
