#pragma once

#include <string>
#include <vector>

#include "output/table.hpp"

namespace podsim::output {

/// The bytes of one podsim HDF5 file (layout in docs/output-schema.md): the FileInfo fields
/// as root attributes and each table as a compound dataset /<name> with attributes `units`
/// and `description`. Tables with 0 rows are written too, so readers see their columns.
///
/// Built in memory: OutputClaim::write puts the bytes on disk, atomically and only where the
/// command claimed. The same arguments give the same bytes. Throws SimulationError on
/// invalid tables (bad or duplicate names, columns of different lengths, text containing
/// NUL) or when HDF5 fails.
std::string hdf5_bytes(const FileInfo& info, const std::vector<Table>& tables);

}  // namespace podsim::output
