#pragma once

#include <filesystem>
#include <vector>

#include "output/table.hpp"

namespace podsim::output {

/// Throws InputError, as write_hdf5 would, if `path` cannot be written (its directory is
/// missing or it is a directory). Commands call it before simulating, to fail fast.
void check_output_path(const std::filesystem::path& path);


/// Writes one podsim HDF5 file (layout in docs/output-schema.md): the FileInfo fields as
/// root attributes and each table as a compound dataset /<name> with attributes `units` and
/// `description`. Tables with 0 rows are written too, so readers see their columns.
///
/// Atomic: the file is written to "<path>.tmp.<pid>" in the same directory and renamed onto
/// `path`, so `path` is either untouched or complete. The same arguments give byte-identical
/// files. Throws InputError if the directory of `path` does not exist or `path` is a
/// directory, SimulationError (naming `path`) on any other failure, including invalid tables
/// (bad or duplicate names, columns of different lengths, text containing NUL); in every case
/// the temporary file is removed.
void write_hdf5(const std::filesystem::path& path, const FileInfo& info,
                const std::vector<Table>& tables);

}  // namespace podsim::output
