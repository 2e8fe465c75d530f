#pragma once

#include <vector>

#include "collectives/schedule.hpp"
#include "topology/topology.hpp"

namespace podsim::partition {

/// Which process simulates each vertex, and the lookahead that follows.
struct VertexPartition {
  std::vector<int> owner;  ///< per vertex (chips, then switches)
  SimTime lookahead_ps = kTimeInfinity;  ///< smallest latency of a link between two processes
};

/// Splits the chips into `parts` contiguous blocks of chip ids holding equal work (the
/// transfers each chip sends, weighted by their bytes), SST-style: a torus's id order walks
/// x fastest, so blocks are slabs, and only the links across a slab boundary join
/// processes. A node switch goes with its node's first chip, a shared fabric (DCN,
/// scale-out) with process 0. Throws SimulationError if a link between processes has no
/// latency (there would be no lookahead).
VertexPartition partition_vertices(const topology::Topology& topo, const collectives::Schedule& schedule, int parts);

}  // namespace podsim::partition
