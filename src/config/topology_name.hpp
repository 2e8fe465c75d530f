#pragma once

// Internal to config: a topology's name follows its size when --set resizes it.
//
// Topology files name their size (a100-dgx-8x8: 8 nodes of 8; tpu-v4-16x16x16; tpu-v5e-2x16x16:
// 2 slices of 16x16; h100-superpod-1024: 1024 chips). When an override changes that size
// (--set topology.nodes=4), the report would still print the file's name beside the new chip
// count ("a100-dgx-8x8 (32 chips)"). The name's size token, found by the values the document
// held before the overrides, is replaced by the same token of the values after them
// ("a100-dgx-4x8 (32 chips)"). A name that does not spell its size is left as it is.

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/overrides.hpp"
#include "config/source_map.hpp"

namespace podsim::config {

/// The ways a topology document's name may spell its size, in a fixed order: for a switch
/// cluster nodes×chips_per_node, chips_per_node×nodes and the chip count; for a torus or mesh
/// its dims joined by 'x' and the chip count; for a multislice slices×dims and the chip count.
/// Empty when the size is not (yet) plain integers.
std::vector<std::string> size_tokens(const YAML::Node& topology);

/// Replaces, in topology["name"], the first '-'-separated part equal to a token of `before`
/// by the token of `after` at the same place, if they differ.
void rename_for_size(YAML::Node topology, const std::vector<std::string>& before,
                     const std::vector<std::string>& after);

/// apply_overrides(root, overrides, sources), then rename_for_size on the topology document
/// at `topology_key` of `root` ("" for `root` itself) with its size tokens before and after.
void apply_overrides_renaming(YAML::Node root, const std::string& topology_key, const std::vector<Override>& overrides,
                              SourceMap& sources);

}  // namespace podsim::config
