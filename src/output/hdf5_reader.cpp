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
  std::vector<std::string> names;
  // Creation order is not tracked (byte-identical files): names come in HDF5's name order.
  const auto visit = [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
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
  StoredFile out;
  out.config_yaml = text_attribute(file.get(), "config_yaml");
  out.podsim_version = text_attribute(file.get(), "podsim_version");
  out.command_line = text_attribute(file.get(), "command_line");
  if (H5Lexists(file.get(), name.c_str(), H5P_DEFAULT) <= 0) return out;
  const Hdf5Handle dataset(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (dataset.get() < 0) throw InputError(shown + ": cannot open table /" + name);
  const Hdf5Handle space(H5Dget_space(dataset.get()), H5Sclose);
  const auto rows = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
  const Hdf5Handle type(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_COMPOUND) throw InputError(shown + ": /" + name + " is not a table");

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
