#pragma once

// Internal to config: loading YAML files and applying command-line overrides.

#include <filesystem>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/overrides.hpp"
#include "config/source_map.hpp"

namespace podsim::config {

/// Parses a YAML file of one document and records it in `sources` (path and SHA-256).
/// InputError "file: cannot open: ..." (missing, not a regular file, too large, HDF5,
/// binary), "file:line:col: malformed YAML: ...", or "file:line: a second YAML document ..."
/// on failure. `shown` is the name used in messages.
YAML::Node load_yaml_file(const std::filesystem::path& file, const std::string& shown, SourceMap& sources);

/// A copy of the mapping `key` of the document `file` (parsed once through
/// `sources.parsed_files()`, which must be set), or a null node when it has none: a section read
/// alone (section_cache.hpp). The file is not recorded as read: the whole reading recorded it.
YAML::Node load_yaml_key(const std::filesystem::path& file, const std::string& shown, const std::string& key,
                         SourceMap& sources);

/// How to show `file` in messages: as given, made relative to the working directory when
/// it lies below it.
std::string display_name(const std::filesystem::path& file);

/// Sets each override's value at its key path below `root` (creating missing mappings),
/// and records it in `sources` so errors about it point at the flag.
void apply_overrides(YAML::Node root, const std::vector<Override>& overrides, SourceMap& sources);

/// If `parent[key]` (at key path `parent_path`) names a file, replaces it by the file's
/// contents (relative to `dir`) and records where they came from, so errors in them name
/// that file. Returns the directory the included document's own includes are relative to.
std::filesystem::path include_file(YAML::Node parent, const std::string& parent_path, const std::string& key,
                                   const std::filesystem::path& dir, SourceMap& sources);

/// YAML text of `root` (the resolved configuration stored in outputs).
std::string dump(const YAML::Node& root);

}  // namespace podsim::config
