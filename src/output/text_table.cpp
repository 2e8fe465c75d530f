#include "output/text_table.hpp"

#include <algorithm>
#include <utility>

#include "util/error.hpp"

namespace podsim::output {

std::size_t display_width(const std::string& text) {
  // Continuation bytes (10xxxxxx) do not start a code point.
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

TextTable::TextTable(std::vector<std::string> headers)
    : headers_(std::move(headers)), align_(headers_.size(), Align::kRight) {}

void TextTable::set_align(std::size_t column, Align align) {
  if (column >= align_.size()) {
    throw SimulationError("text table has " + std::to_string(align_.size()) +
                          " columns, no column " + std::to_string(column));
  }
  align_[column] = align;
}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() != headers_.size()) {
    throw SimulationError("text table row has " + std::to_string(cells.size()) + " cells for " +
                          std::to_string(headers_.size()) + " columns");
  }
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<std::size_t> width(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    width[c] = display_width(headers_[c]);
    for (const auto& row : rows_) width[c] = std::max(width[c], display_width(row[c]));
  }

  std::string out;
  const auto append_line = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string pad(width[c] - display_width(cells[c]), ' ');
      line += align_[c] == Align::kLeft ? cells[c] + pad : pad + cells[c];
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line;
    out += '\n';
  };

  // Headers that are all empty make a list of facts, not a table: no header, no rule.
  if (std::any_of(headers_.begin(), headers_.end(), [](const std::string& h) { return !h.empty(); })) {
    append_line(headers_);
    std::vector<std::string> dashes;
    dashes.reserve(width.size());
    for (const std::size_t w : width) dashes.emplace_back(w, '-');
    append_line(dashes);
  }
  for (const auto& row : rows_) append_line(row);
  return out;
}

}  // namespace podsim::output
