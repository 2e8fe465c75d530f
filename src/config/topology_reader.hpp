#pragma once

// Internal to config: the topology part of any document (a topology file, or the
// `topology:` section of a composed command document).

#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "config/reader.hpp"
#include "topology/topology_spec.hpp"

namespace podsim::config {

/// Replaces a multislice's `slice: other.yaml` by that file's contents (resolved relative
/// to `dir`), registering it in `sources` under `path`.slice.
void inline_topology_includes(YAML::Node topology, const std::string& path,
                              const std::filesystem::path& dir, SourceMap& sources);

/// Reads and validates a whole topology document.
topology::TopologySpec read_topology(Reader& r);

}  // namespace podsim::config
