#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace podsim::validation {

/// One data row of a CSV file: column name → text, and the line it started on.
struct CsvRow {
  int line = 0;
  std::map<std::string, std::string> cells;

  /// The cell of `column`, or "" when the column is absent.
  std::string at(const std::string& column) const;
};

/// Reads an RFC 4180 CSV file with a header line (quoted fields may hold commas, quotes
/// and newlines). Throws InputError "file:line: …" for an unclosed quote, a row with the
/// wrong number of fields, or a missing column of `required`.
std::vector<CsvRow> read_csv(const std::filesystem::path& file, const std::vector<std::string>& required);

/// `s` in lower case (ASCII): free-text cells are matched case-insensitively.
std::string lower(std::string s);
/// Whether `text` contains `needle` (given in lower case), ignoring case.
bool has(const std::string& text, const std::string& needle);
/// A cell that is a whole number and nothing else, or nothing.
std::optional<long long> integer(const std::string& cell);

/// The 26 columns of the published-measurements format (configs/validation/published.csv).
std::vector<std::string> published_columns();

}  // namespace podsim::validation
