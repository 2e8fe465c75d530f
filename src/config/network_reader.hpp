#pragma once

// Internal to config: the `network:` section of a command or scenario document.

#include "config/reader.hpp"
#include "network/network_spec.hpp"

namespace podsim::config {

/// Reads {model: analytical|contention, min_chunk: 64 KiB, max_chunks: 16}, filling defaults.
network::NetworkSpec read_network(Reader& r);

}  // namespace podsim::config
