#include "output/table.hpp"

#include <cstdio>
#include <utility>

#include "util/error.hpp"

namespace podsim::output {

namespace {

Column& add_column(Table& table, std::string name, std::string unit, Column::Values values) {
  for (const Column& c : table.columns) {
    if (c.name == name) {
      throw SimulationError("table '" + table.name + "' already has a column '" + name + "'");
    }
  }
  return table.columns.emplace_back(Column{std::move(name), std::move(unit), std::move(values)});
}

template <typename T, typename ColumnT>
auto& typed(ColumnT& column, std::string_view wanted) {
  if (auto* v = std::get_if<std::vector<T>>(&column.values)) return *v;
  throw SimulationError("column '" + column.name + "' holds " + std::string(column.type_name()) +
                        " values, not " + std::string(wanted));
}

// One body for the const and non-const lookups.
template <typename TableT>
auto& find_column(TableT& table, std::string_view column_name) {
  for (auto& c : table.columns) {
    if (c.name == column_name) return c;
  }
  throw SimulationError("table '" + table.name + "' has no column '" + std::string(column_name) +
                        "'");
}

}  // namespace

std::size_t Column::size() const {
  return std::visit([](const auto& v) { return v.size(); }, values);
}

std::string_view Column::type_name() const {
  if (std::holds_alternative<std::vector<double>>(values)) return "real";
  if (std::holds_alternative<std::vector<std::int64_t>>(values)) return "int";
  return "text";
}

std::vector<double>& Column::reals() { return typed<double>(*this, "real"); }
std::vector<std::int64_t>& Column::ints() { return typed<std::int64_t>(*this, "int"); }
std::vector<std::string>& Column::texts() { return typed<std::string>(*this, "text"); }
const std::vector<double>& Column::reals() const { return typed<double>(*this, "real"); }
const std::vector<std::int64_t>& Column::ints() const { return typed<std::int64_t>(*this, "int"); }
const std::vector<std::string>& Column::texts() const { return typed<std::string>(*this, "text"); }

std::string Column::text(std::size_t row, int digits) const {
  if (const auto* v = std::get_if<std::vector<double>>(&values)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits, (*v)[row]);
    return buf;
  }
  if (const auto* v = std::get_if<std::vector<std::int64_t>>(&values)) return std::to_string((*v)[row]);
  return texts()[row];
}

std::size_t Table::rows() const {
  if (columns.empty()) return 0;
  const Column& first = columns.front();
  for (const Column& c : columns) {
    if (c.size() != first.size()) {
      throw SimulationError("table '" + name + "': column '" + first.name + "' has " +
                            std::to_string(first.size()) + " rows but column '" + c.name +
                            "' has " + std::to_string(c.size()));
    }
  }
  return first.size();
}

Column& Table::add_real(std::string column_name, std::string unit) {
  return add_column(*this, std::move(column_name), std::move(unit), std::vector<double>{});
}

Column& Table::add_int(std::string column_name, std::string unit) {
  return add_column(*this, std::move(column_name), std::move(unit), std::vector<std::int64_t>{});
}

Column& Table::add_text(std::string column_name) {
  return add_column(*this, std::move(column_name), "", std::vector<std::string>{});
}

Column& Table::column(std::string_view column_name) { return find_column(*this, column_name); }

bool Table::has(std::string_view column_name) const {
  for (const Column& c : columns) {
    if (c.name == column_name) return true;
  }
  return false;
}

const Column& Table::column(std::string_view column_name) const {
  return find_column(*this, column_name);
}

std::vector<double>& Table::reals(std::string_view column_name) {
  return column(column_name).reals();
}

std::vector<std::int64_t>& Table::ints(std::string_view column_name) {
  return column(column_name).ints();
}

std::vector<std::string>& Table::texts(std::string_view column_name) {
  return column(column_name).texts();
}

const std::vector<double>& Table::reals(std::string_view column_name) const {
  return column(column_name).reals();
}

const std::vector<std::int64_t>& Table::ints(std::string_view column_name) const {
  return column(column_name).ints();
}

const std::vector<std::string>& Table::texts(std::string_view column_name) const {
  return column(column_name).texts();
}

}  // namespace podsim::output
