#include "output/hdf5_writer.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "output/hdf5_handle.hpp"
#include "util/error.hpp"

namespace podsim::output {

namespace {

static_assert(sizeof(double) == 8 && sizeof(std::int64_t) == 8);

hid_t checked(hid_t id, std::string_view what) {
  if (id < 0) throw SimulationError(std::string(what) + ": " + hdf5_error_message());
  return id;
}

void check(herr_t status, std::string_view what) {
  if (status < 0) throw SimulationError(std::string(what) + ": " + hdf5_error_message());
}

/// Writes attribute `name` of `loc`: one scalar string, or a 1-D array of `strings`.
void write_string_attribute(hid_t loc, const char* name, const std::vector<const char*>& strings,
                            bool scalar) {
  const std::string what = std::string("writing attribute '") + name + "'";
  const Hdf5Handle type = make_string_type();
  const hsize_t n = strings.size();
  const Hdf5Handle space(
      checked(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), what), H5Sclose);
  const Hdf5Handle attr(
      checked(H5Acreate2(loc, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), what),
      H5Aclose);
  if (!strings.empty()) check(H5Awrite(attr.get(), type.get(), strings.data()), what);
}

void write_string_attribute(hid_t loc, const char* name, const std::string& value) {
  write_string_attribute(loc, name, {value.c_str()}, true);
}

void write_int_attribute(hid_t loc, const char* name, std::int64_t value) {
  const std::string what = std::string("writing attribute '") + name + "'";
  const Hdf5Handle space(checked(H5Screate(H5S_SCALAR), what), H5Sclose);
  const Hdf5Handle attr(
      checked(H5Acreate2(loc, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), what),
      H5Aclose);
  check(H5Awrite(attr.get(), H5T_NATIVE_INT64, &value), what);
}

void check_name(std::string_view name, std::string_view kind) {
  bool ok = !name.empty();
  for (const char c : name) {
    ok = ok &&
         ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
  }
  if (!ok) {
    throw SimulationError(std::string(kind) + " name '" + std::string(name) +
                          "' must be non-empty and use only letters, digits and '_'");
  }
}

/// Everything write_table relies on; throws SimulationError naming the table and column.
std::size_t check_table(hid_t file, const Table& table) {
  check_name(table.name, "table");
  if (H5Lexists(file, table.name.c_str(), H5P_DEFAULT) > 0) {
    throw SimulationError("two tables are called '" + table.name + "'");
  }
  if (table.columns.empty()) throw SimulationError("table '" + table.name + "' has no columns");
  const std::size_t rows = table.rows();
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    const Column& c = table.columns[i];
    check_name(c.name, "column");
    for (std::size_t j = 0; j < i; ++j) {
      if (table.columns[j].name == c.name) {
        throw SimulationError("table '" + table.name + "' has two columns '" + c.name + "'");
      }
    }
    const bool text = std::holds_alternative<std::vector<std::string>>(c.values);
    if (text != c.unit.empty()) {
      throw SimulationError("column '" + c.name + "' of table '" + table.name + "': " +
                            (text ? "text columns have no unit" : "numeric columns need a unit") +
                            " (got \"" + c.unit + "\")");
    }
    if (const auto* strings = std::get_if<std::vector<std::string>>(&c.values)) {
      for (const std::string& s : *strings) {
        if (s.find('\0') != std::string::npos) {
          throw SimulationError("column '" + c.name + "' of table '" + table.name +
                                "' contains text with a NUL character");
        }
      }
    }
  }
  return rows;
}

/// Stores the value of row `row` of `column` at `dst` in the layout of the memory type.
void pack_cell(const Column& column, std::size_t row, unsigned char* dst) {
  if (const auto* reals = std::get_if<std::vector<double>>(&column.values)) {
    std::memcpy(dst, &(*reals)[row], sizeof(double));
  } else if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&column.values)) {
    std::memcpy(dst, &(*ints)[row], sizeof(std::int64_t));
  } else {
    // HDF5 only reads through the pointer when writing.
    const char* text = std::get<std::vector<std::string>>(column.values)[row].c_str();
    std::memcpy(dst, &text, sizeof(text));
  }
}

void write_table(hid_t file, const Table& table) {
  const std::size_t rows = check_table(file, table);
  const std::string what = "writing table '" + table.name + "'";

  // Packed rows, no padding. The file type fixes the byte order (little-endian) so a file
  // is the same whichever machine wrote it; the memory type is the native one.
  const Hdf5Handle text_type = make_string_type();
  std::size_t row_size = 0;
  std::vector<std::size_t> offsets;
  for (const Column& c : table.columns) {
    offsets.push_back(row_size);
    row_size += std::holds_alternative<std::vector<std::string>>(c.values) ? sizeof(const char*)
                                                                           : sizeof(double);
  }
  const Hdf5Handle file_type(checked(H5Tcreate(H5T_COMPOUND, row_size), what), H5Tclose);
  const Hdf5Handle mem_type(checked(H5Tcreate(H5T_COMPOUND, row_size), what), H5Tclose);
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    const Column& c = table.columns[i];
    hid_t file_member = text_type.get();
    hid_t mem_member = text_type.get();
    if (std::holds_alternative<std::vector<double>>(c.values)) {
      file_member = H5T_IEEE_F64LE;
      mem_member = H5T_NATIVE_DOUBLE;
    } else if (std::holds_alternative<std::vector<std::int64_t>>(c.values)) {
      file_member = H5T_STD_I64LE;
      mem_member = H5T_NATIVE_INT64;
    }
    check(H5Tinsert(file_type.get(), c.name.c_str(), offsets[i], file_member), what);
    check(H5Tinsert(mem_type.get(), c.name.c_str(), offsets[i], mem_member), what);
  }

  const hsize_t dims = rows;
  const Hdf5Handle space(checked(H5Screate_simple(1, &dims, nullptr), what), H5Sclose);
  const Hdf5Handle dcpl(checked(H5Pcreate(H5P_DATASET_CREATE), what), H5Pclose);
  // No modification times in the object header: identical tables give identical bytes.
  check(H5Pset_obj_track_times(dcpl.get(), false), what);
  const Hdf5Handle dataset(checked(H5Dcreate2(file, table.name.c_str(), file_type.get(),
                                              space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                                   what),
                           H5Dclose);
  if (rows > 0) {
    std::vector<unsigned char> buffer(rows * row_size, 0);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t i = 0; i < table.columns.size(); ++i) {
        pack_cell(table.columns[i], r, buffer.data() + r * row_size + offsets[i]);
      }
    }
    check(H5Dwrite(dataset.get(), mem_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()),
          what);
  }

  std::vector<const char*> units;
  for (const Column& c : table.columns) units.push_back(c.unit.c_str());
  write_string_attribute(dataset.get(), "units", units, false);
  write_string_attribute(dataset.get(), "description", table.description);
}

}  // namespace

std::string hdf5_bytes(const FileInfo& info, const std::vector<Table>& tables) {
  const Hdf5Silence silence;
  const Hdf5Handle fcpl(checked(H5Pcreate(H5P_FILE_CREATE), "creating the file properties"), H5Pclose);
  // The root group is an object too: no modification time in its header either.
  check(H5Pset_obj_track_times(fcpl.get(), false), "disabling time tracking");
  const Hdf5Handle fapl(checked(H5Pcreate(H5P_FILE_ACCESS), "creating the access properties"), H5Pclose);
  // The core driver builds the file in memory and never touches the disk (no backing
  // store): the bytes go to disk through OutputClaim::write, which owns every file it writes.
  check(H5Pset_fapl_core(fapl.get(), std::size_t{1} << 20, false), "choosing the in-memory driver");
  const Hdf5Handle handle(checked(H5Fcreate("podsim-in-memory.h5", H5F_ACC_TRUNC, fcpl.get(), fapl.get()),
                                  "creating the file in memory"),
                          H5Fclose);
  const hid_t file = handle.get();
  write_string_attribute(file, "podsim_version", info.podsim_version);
  write_string_attribute(file, "command_line", info.command_line);
  write_string_attribute(file, "config_yaml", info.config_yaml);
  write_int_attribute(file, "schema_version", info.schema_version);
  for (const Table& table : tables) write_table(file, table);
  check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flushing the file");
  const ssize_t size = H5Fget_file_image(file, nullptr, 0);
  if (size <= 0) throw SimulationError("taking the file's image: " + hdf5_error_message());
  std::string bytes(static_cast<std::size_t>(size), '\0');
  if (H5Fget_file_image(file, bytes.data(), bytes.size()) != size) {
    throw SimulationError("taking the file's image: " + hdf5_error_message());
  }
  return bytes;
}

}  // namespace podsim::output
