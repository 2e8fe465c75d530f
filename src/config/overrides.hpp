#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace podsim::config {

/// One `--set key.path=value` from the command line.
struct Override {
  std::string path;   ///< dotted key path from the document root, e.g. "link.bandwidth"
  std::string value;  ///< YAML text of the new value, e.g. "50 GB/s" or "[4, 4]"
  std::string text;   ///< as typed, for error messages: "--set link.bandwidth=50 GB/s"
  /// A file named by the value (model: other.yaml) is relative to this directory (the
  /// working directory for --set, the sweep file's for a sweep).
  std::filesystem::path dir;
};

/// Parses "key.path=value" strings. Throws InputError naming the bad one.
std::vector<Override> parse_overrides(const std::vector<std::string>& assignments);

}  // namespace podsim::config
