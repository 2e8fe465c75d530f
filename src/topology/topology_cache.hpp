#pragma once

// The machines one process builds again and again — a sweep's points and a plan's layouts
// on one pod — built once: a Topology depends on its spec alone and does not change once
// built, so every point on the same spec can read the same one.

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "topology/topology.hpp"
#include "topology/topology_spec.hpp"

namespace podsim::topology {

class TopologyCache {
 public:
  /// The topology of `spec`, built on the first request (the last few specs are kept). The
  /// reference stays valid until kKept other specs have been asked for since.
  const Topology& get(const TopologySpec& spec);

 private:
  /// A sweep varies the machine rarely, a few sizes at most: four keep a pod and its slices
  /// without holding many 100k-chip graphs at once.
  static constexpr std::size_t kKept = 4;
  std::vector<std::pair<TopologySpec, std::unique_ptr<const Topology>>> kept_;  // most recent last
};

}  // namespace podsim::topology
