#pragma once

#include <optional>
#include <vector>

#include "topology/topology.hpp"

namespace podsim::topology {

/// Hop distance from `source` to every vertex (−1 where unreachable). With `only_tier`,
/// only links of that tier are followed (e.g. ICI inside one slice).
std::vector<int> hop_distances(const Topology& topo, VertexId source,
                               std::optional<LinkTier> only_tier = std::nullopt);

/// Summary facts of a topology, as `podsim topo` prints them.
struct TopologyFacts {
  std::uint32_t chips = 0;
  std::size_t links = 0;  ///< directed links, switch ports included
  /// Longest route between two chips, in links. Routes are minimal inside a tier (ICI,
  /// node switch); between slices or nodes they go through the switch (2 links), so a
  /// multislice's diameter is its slice's, not the 2 hops a detour over DCN would take.
  int diameter = 0;
  /// Bandwidth across the weakest cut that halves the chips along one axis, one direction.
  double bisection_Bps = 0;
  /// Per axis: bandwidth one chip can drive in a ring along it (2 links on a wrapped axis
  /// of 3+ chips, where the ring runs both ways; 1 otherwise).
  std::vector<double> ring_Bps;
};

/// Computes the facts with Boost.Graph breadth-first search and cut counting.
///
/// Diameter: routes from chip 0 only. Every layout podsim builds is either vertex-transitive
/// (tori, twisted tori, switches) or a product of paths and cycles in which chip 0 is a
/// corner, whose eccentricity is the maximum; tests compare against all-pairs BFS.
TopologyFacts analyze(const Topology& topo);

}  // namespace podsim::topology
