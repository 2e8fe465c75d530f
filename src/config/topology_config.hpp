#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/input_record.hpp"
#include "config/overrides.hpp"
#include "topology/topology_spec.hpp"

namespace podsim::config {

/// A topology file read, validated and resolved.
struct LoadedTopology {
  topology::TopologySpec spec;
  /// The fully resolved document (includes inlined, overrides applied, defaults filled).
  std::string resolved_yaml;
  /// Every file read (the topology and the slice it includes).
  std::vector<InputRecord> inputs;
};

/// Reads a topology file (the format: docs/configuration.md, "Topology files"). An override's
/// key is the file's own (nodes, link.bandwidth) or the scenario's (topology.nodes). Throws
/// InputError with file, line, column and key path on any problem.
LoadedTopology load_topology(const std::filesystem::path& file,
                             const std::vector<Override>& overrides = {});

}  // namespace podsim::config
