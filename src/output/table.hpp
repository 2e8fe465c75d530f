#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

// Tables are what every podsim command hands to its writers (HDF5 file, console, JSON). They
// are plain data so that modules below `output` never see HDF5; docs/output-schema.md lists
// the tables and their columns.

namespace podsim::output {

/// One column: values all of one type. `unit` is "s", "B", "B/s", "1" (dimensionless) or
/// another SI-style unit for numeric columns, and "" for text. Names use [A-Za-z0-9_] only
/// (they become HDF5 field names and numpy/pandas column names).
struct Column {
  /// The values: doubles, 64-bit integers or UTF-8 text.
  using Values =
      std::variant<std::vector<double>, std::vector<std::int64_t>, std::vector<std::string>>;

  std::string name;
  std::string unit;
  Values values;

  /// Number of values (rows) in this column.
  std::size_t size() const;
  /// "real", "int" or "text", for messages.
  std::string_view type_name() const;
  /// The values as doubles / 64-bit integers / UTF-8 text; throws SimulationError naming the
  /// column if it holds another type.
  std::vector<double>& reals();
  std::vector<std::int64_t>& ints();
  std::vector<std::string>& texts();
  const std::vector<double>& reals() const;
  const std::vector<std::int64_t>& ints() const;
  const std::vector<std::string>& texts() const;
  /// Value `row` as text: a real with `digits` significant digits, an integer exactly, text
  /// as it is (what `podsim report` and its HTML page show).
  std::string text(std::size_t row, int digits) const;
};

/// A named table, written as one compound dataset /<name> with one row per entity.
/// Every column has the same number of rows.
struct Table {
  std::string name;         ///< [A-Za-z0-9_]+, unique in a file
  std::string description;  ///< written as the dataset attribute "description"
  std::vector<Column> columns;

  /// Number of rows (0 without columns). Throws SimulationError if columns differ in length.
  std::size_t rows() const;

  // Builders append an empty column and return it, e.g. t.add_real("time_s", "s").reals().
  // The reference points into `columns`: the next add_* invalidates it. To fill several
  // columns row by row, add them all first, then use column()/reals()/ints()/texts().

  /// Appends a column of doubles in `unit`. Throws SimulationError on a duplicate name.
  Column& add_real(std::string column_name, std::string unit);
  /// Appends a column of 64-bit integers in `unit`. Throws SimulationError on a duplicate name.
  Column& add_int(std::string column_name, std::string unit);
  /// Appends a column of UTF-8 text (unit ""). Throws SimulationError on a duplicate name.
  Column& add_text(std::string column_name);

  /// True when a column is called `column_name`.
  bool has(std::string_view column_name) const;
  /// The column called `column_name`; throws SimulationError if there is none.
  Column& column(std::string_view column_name);
  const Column& column(std::string_view column_name) const;
  /// column(name).reals() / .ints() / .texts().
  std::vector<double>& reals(std::string_view column_name);
  std::vector<std::int64_t>& ints(std::string_view column_name);
  std::vector<std::string>& texts(std::string_view column_name);
  const std::vector<double>& reals(std::string_view column_name) const;
  const std::vector<std::int64_t>& ints(std::string_view column_name) const;
  const std::vector<std::string>& texts(std::string_view column_name) const;
};

/// The version of the file layout this podsim writes and reads (docs/output-schema.md).
inline constexpr std::int64_t kSchemaVersion = 1;

/// Root attributes of every podsim file.
struct FileInfo {
  std::string podsim_version;
  std::string command_line;
  std::string config_yaml;  ///< the fully resolved configuration
  std::int64_t schema_version = kSchemaVersion;
};

}  // namespace podsim::output
