#pragma once

#include <filesystem>
#include <string_view>

namespace podsim::output {

/// Writes `text` to `path` whole or not at all: into "<path>.tmp.<pid>", then renamed over
/// `path` (the same convention as write_hdf5, so an OutputClaim cleans up after a kill).
/// Throws SimulationError naming the path when it cannot.
void write_text_file(const std::filesystem::path& path, std::string_view text);

}  // namespace podsim::output
