#include "validation/csv_table.hpp"

#include <cctype>

#include "util/error.hpp"
#include "util/input_file.hpp"
#include "util/suggest.hpp"

namespace podsim::validation {

std::string CsvRow::at(const std::string& column) const {
  const auto it = cells.find(column);
  return it == cells.end() ? std::string() : it->second;
}

std::vector<std::string> published_columns() {
  return {
      "id",           "source",        "hardware",      "n_chips",       "model",        "params",
      "layers",       "hidden",        "ffn_hidden",    "heads",         "kv_heads",     "seq_len",
      "vocab",        "global_batch_seqs", "micro_batch", "tp",          "pp",           "dp",
      "cp_or_sp",     "interleave_v",  "zero_or_fsdp",  "recompute",     "precision",    "measured_metric",
      "measured_value", "notes"};
}

namespace {

/// Splits CSV text into records of fields; records keep the line they start on.
struct Record {
  int line;
  std::vector<std::string> fields;
};

std::vector<Record> parse(const std::string& text, const std::string& shown) {
  std::vector<Record> records;
  Record current{1, {}};
  std::string field;
  bool quoted = false;
  bool field_started = false;
  int line = 1;
  int quote_line = 0;
  // A spreadsheet's "CSV UTF-8" starts with a byte order mark, which is not part of the first
  // column's name.
  const std::size_t start = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && !field_started) {
      quoted = true;
      field_started = true;
      quote_line = line;
    } else if (c == ',') {
      current.fields.push_back(field);
      field.clear();
      field_started = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      current.fields.push_back(field);
      field.clear();
      field_started = false;
      if (!(current.fields.size() == 1 && current.fields[0].empty())) records.push_back(current);
      ++line;
      current = Record{line, {}};
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted) throw InputError(shown + ":" + std::to_string(quote_line) + ": a quoted field is never closed");
  if (field_started || !current.fields.empty()) {
    current.fields.push_back(field);
    records.push_back(current);
  }
  return records;
}

}  // namespace

std::vector<CsvRow> read_csv(const std::filesystem::path& file, const std::vector<std::string>& required) {
  const std::string shown = file.string();
  const std::vector<Record> records = parse(read_input_file(file, shown), shown);
  if (records.empty()) throw InputError(shown + ":1: the file is empty; expected a header line");
  const std::vector<std::string>& header = records.front().fields;
  for (const auto& column : required) {
    bool found = false;
    for (const auto& h : header) found = found || h == column;
    if (!found) {
      throw InputError(shown + ":1: missing column \"" + column + "\"" + did_you_mean(column, header) +
                       "; the format has " + std::to_string(required.size()) + " columns: " + join_choices(required));
    }
  }
  std::vector<CsvRow> rows;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const Record& rec = records[r];
    if (rec.fields.size() != header.size()) {
      throw InputError(shown + ":" + std::to_string(rec.line) + ": " + std::to_string(rec.fields.size()) +
                       " fields, but the header has " + std::to_string(header.size()));
    }
    CsvRow row;
    row.line = rec.line;
    for (std::size_t c = 0; c < header.size(); ++c) row.cells[header[c]] = rec.fields[c];
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has(const std::string& text, const std::string& needle) { return lower(text).find(needle) != std::string::npos; }

std::optional<long long> integer(const std::string& cell) {
  if (cell.empty()) return std::nullopt;
  std::size_t used = 0;
  try {
    const long long v = std::stoll(cell, &used);
    if (used == cell.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace podsim::validation
