#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace podsim::output {

/// How the cells of a console column line up.
enum class Align { kLeft, kRight };

/// A console table for stdout (`podsim topo`, `podsim collective`): a header row, a line of
/// dashes, then rows of preformatted cells. Each column is as wide as its widest cell
/// (counted in UTF-8 code points), columns are two spaces apart, lines have no trailing
/// spaces and end in '\n'. Numbers are right-aligned by default; text columns are named
/// left-aligned by the caller.
class TextTable {
 public:
  /// Columns with these headers, all right-aligned until set_align says otherwise. When
  /// every header is empty the table renders without a header row and rule.
  explicit TextTable(std::vector<std::string> headers);

  /// Aligns column `column` (0-based); throws SimulationError if there is no such column.
  void set_align(std::size_t column, Align align);
  /// Appends a row; throws SimulationError unless it has one cell per column.
  void add_row(std::vector<std::string> cells);

  /// Number of data rows (not counting the header).
  std::size_t rows() const { return rows_.size(); }
  /// The table as text.
  std::string render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

/// Display width of UTF-8 `text` in a terminal, taken as its number of code points.
std::size_t display_width(const std::string& text);

}  // namespace podsim::output
