#pragma once

#include <filesystem>
#include <string>

namespace podsim::cli {

/// `value` as a file if there is one (a device, FIFO, directory or symlink loop is refused
/// by name), else the YAML file of that name in `dir` (`tpu-v4` → dir/tpu-v4.yaml). Throws
/// InputError naming `flag`, with the names `dir` holds and the nearest of them.
std::filesystem::path resolve_named_file(const std::string& flag, const std::string& value,
                                         const std::filesystem::path& dir);

/// The repository root holding configs/ and topologies/: `root` if given, else the source
/// tree podsim was built from.
std::filesystem::path repository_root(const std::string& root);

}  // namespace podsim::cli
