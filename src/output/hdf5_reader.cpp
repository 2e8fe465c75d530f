#include "output/hdf5_reader.hpp"

#include <cstdint>
#include <vector>

#include "output/hdf5_handle.hpp"
#include "util/error.hpp"

namespace podsim::output {

namespace {

std::vector<std::string> read_strings(hid_t attr) {
  const Hdf5Handle space(H5Aget_space(attr), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  std::vector<char*> raw(static_cast<std::size_t>(n > 0 ? n : 0), nullptr);
  const Hdf5Handle type = make_string_type();
  std::vector<std::string> out;
  if (!raw.empty() && H5Aread(attr, type.get(), raw.data()) >= 0) {
    for (char* s : raw) out.emplace_back(s != nullptr ? s : "");
    H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, raw.data());
  }
  return out;
}

/// A scalar text attribute of `loc` ("" if it has none).
std::string text_attribute(hid_t loc, const char* name) {
  if (H5Aexists(loc, name) <= 0) return "";
  const Hdf5Handle attr(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  const std::vector<std::string> values = read_strings(attr.get());
  return values.empty() ? "" : values.front();
}

/// Refuses a file that is not a podsim result of the layout this podsim reads: its root
/// attribute schema_version must be the integer kSchemaVersion.
void check_schema(hid_t file, const std::string& shown) {
  if (H5Aexists(file, "schema_version") <= 0) {
    throw InputError(shown + ": not a podsim result file (it has no schema_version attribute)");
  }
  const Hdf5Handle attr(H5Aopen(file, "schema_version", H5P_DEFAULT), H5Aclose);
  const Hdf5Handle type(H5Aget_type(attr.get()), H5Tclose);
  const Hdf5Handle space(H5Aget_space(attr.get()), H5Sclose);
  std::int64_t version = 0;
  if (H5Tget_class(type.get()) != H5T_INTEGER || H5Sget_simple_extent_npoints(space.get()) != 1 ||
      H5Aread(attr.get(), H5T_NATIVE_INT64, &version) < 0) {
    throw InputError(shown + ": its schema_version attribute is not one integer; not a file podsim wrote");
  }
  if (version != kSchemaVersion) {
    const std::string podsim = text_attribute(file, "podsim_version");
    throw InputError(shown + ": schema_version " + std::to_string(version) + (podsim.empty() ? "" : " (podsim " + podsim + ")") +
                     "; this podsim reads version " + std::to_string(kSchemaVersion) +
                     (version > kSchemaVersion ? ": it was written by a newer podsim" : ""));
  }
}

/// One member of a compound dataset, read on its own (HDF5 matches members by name).
template <typename T>
std::vector<T> read_member(hid_t dataset, const char* name, hid_t native, std::size_t rows) {
  const Hdf5Handle mem(H5Tcreate(H5T_COMPOUND, sizeof(T)), H5Tclose);
  H5Tinsert(mem.get(), name, 0, native);
  std::vector<T> values(rows);
  if (rows > 0 && H5Dread(dataset, mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) {
    throw InputError("cannot read column " + std::string(name) + ": " + hdf5_error_message());
  }
  return values;
}

}  // namespace

std::vector<std::string> table_names(const std::filesystem::path& path) {
  const Hdf5Silence silence;
  const Hdf5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.get() < 0) throw InputError(path.string() + ": not a readable HDF5 file");
  check_schema(file.get(), path.string());
  std::vector<std::string> names;
  // Creation order is not tracked (byte-identical files): names come in HDF5's name order.
  // Tables are compound datasets under hard links: a group, a soft link, or an external link
  // (which HDF5 would follow into another file, even a FIFO) is not one.
  const auto visit = [](hid_t loc, const char* name, const H5L_info_t* link, void* out) -> herr_t {
    if (link->type != H5L_TYPE_HARD) return 0;
    H5O_info_t object;
    if (H5Oget_info_by_name2(loc, name, &object, H5O_INFO_BASIC, H5P_DEFAULT) < 0 || object.type != H5O_TYPE_DATASET) {
      return 0;
    }
    const Hdf5Handle dataset(H5Dopen2(loc, name, H5P_DEFAULT), H5Dclose);
    const Hdf5Handle type(H5Dget_type(dataset.get()), H5Tclose);
    if (dataset.get() >= 0 && type.get() >= 0 && H5Tget_class(type.get()) == H5T_COMPOUND) {
      static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    }
    return 0;
  };
  if (H5Literate(file.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, visit, &names) < 0) {
    throw InputError(path.string() + ": cannot list its tables");
  }
  return names;
}

StoredFile read_hdf5(const std::filesystem::path& path, const std::string& name) {
  const Hdf5Silence silence;
  const std::string shown = path.string();
  const Hdf5Handle file(H5Fopen(shown.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.get() < 0) throw InputError(shown + ": not a readable HDF5 file");
  check_schema(file.get(), shown);
  StoredFile out;
  out.config_yaml = text_attribute(file.get(), "config_yaml");
  out.podsim_version = text_attribute(file.get(), "podsim_version");
  out.command_line = text_attribute(file.get(), "command_line");
  if (H5Lexists(file.get(), name.c_str(), H5P_DEFAULT) <= 0) return out;
  H5L_info_t link;
  if (H5Lget_info(file.get(), name.c_str(), &link, H5P_DEFAULT) < 0 || link.type != H5L_TYPE_HARD) {
    throw InputError(shown + ": /" + name + " is a link, not a table podsim wrote");
  }
  const Hdf5Handle dataset(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (dataset.get() < 0) throw InputError(shown + ": cannot open table /" + name);
  const Hdf5Handle space(H5Dget_space(dataset.get()), H5Sclose);
  const Hdf5Handle type(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_COMPOUND) throw InputError(shown + ": /" + name + " is not a table");
  if (H5Sget_simple_extent_ndims(space.get()) != 1) {
    throw InputError(shown + ": /" + name + " is not a one-dimensional table (podsim writes one row per entity)");
  }
  const auto rows = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
  // A dataset may declare more rows than it stores (unallocated, or compressed): reading
  // them would allocate what the file never held. podsim stores every row it declares.
  const std::size_t row_bytes = H5Tget_size(type.get());
  const hsize_t stored = H5Dget_storage_size(dataset.get());
  if (rows > 0 && (row_bytes == 0 || rows > stored / row_bytes)) {
    throw InputError(shown + ": /" + name + " declares " + std::to_string(rows) + " rows but stores " +
                     std::to_string(stored) + " bytes (" + std::to_string(row_bytes) +
                     " per row); not a table podsim wrote");
  }

  std::vector<std::string> units;
  if (H5Aexists(dataset.get(), "units") > 0) {
    const Hdf5Handle attr(H5Aopen(dataset.get(), "units", H5P_DEFAULT), H5Aclose);
    units = read_strings(attr.get());
  }
  Table table;
  table.name = name;
  table.description = text_attribute(dataset.get(), "description");
  const int members = H5Tget_nmembers(type.get());
  for (int m = 0; m < members; ++m) {
    char* member_name = H5Tget_member_name(type.get(), static_cast<unsigned>(m));
    const std::string column = member_name;
    H5free_memory(member_name);
    const std::string unit = static_cast<std::size_t>(m) < units.size() ? units[static_cast<std::size_t>(m)] : "";
    switch (H5Tget_member_class(type.get(), static_cast<unsigned>(m))) {
      case H5T_FLOAT:
        table.add_real(column, unit).reals() = read_member<double>(dataset.get(), column.c_str(), H5T_NATIVE_DOUBLE, rows);
        break;
      case H5T_INTEGER:
        table.add_int(column, unit).ints() =
            read_member<std::int64_t>(dataset.get(), column.c_str(), H5T_NATIVE_INT64, rows);
        break;
      case H5T_STRING: {
        const Hdf5Handle str = make_string_type();
        std::vector<char*> raw = read_member<char*>(dataset.get(), column.c_str(), str.get(), rows);
        auto& texts = table.add_text(column).texts();
        for (char* s : raw) {
          texts.emplace_back(s != nullptr ? s : "");
          H5free_memory(s);
        }
        break;
      }
      default:
        throw InputError(shown + ": /" + name + " column " + column + " has a type podsim does not write");
    }
  }
  out.table = std::move(table);
  return out;
}

}  // namespace podsim::output
