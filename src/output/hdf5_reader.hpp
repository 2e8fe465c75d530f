#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "output/table.hpp"

namespace podsim::output {

/// What a podsim HDF5 file holds, as far as a command resuming from it needs.
struct StoredFile {
  std::string config_yaml;     ///< the root attribute of the same name
  std::string podsim_version;  ///< the root attribute of the same name
  std::string command_line;    ///< the root attribute of the same name
  std::optional<Table> table;  ///< the requested table, if the file has it
};

/// Reads `path` (as hdf5_bytes builds it): its config_yaml and the table `name`, with each
/// column's values and unit. Throws InputError if it is not a readable podsim file, or one
/// whose schema_version is not kSchemaVersion (a newer podsim's).
StoredFile read_hdf5(const std::filesystem::path& path, const std::string& name);

/// Names of the tables (compound datasets at the root) of a podsim file, in file order.
/// Throws InputError if it is not a readable podsim file of schema kSchemaVersion.
std::vector<std::string> table_names(const std::filesystem::path& path);

}  // namespace podsim::output
