#pragma once

// Link images of a symmetric schedule (Schedule::set_link_images): a lowering that simulates
// one period of a collective (one line of a torus, two slices of a multislice, two nodes of
// an NCCL ring) pairs each route it simulates with the routes that period stands for, and
// the pairs must be exact copies: the same hops, bandwidths and latencies, and links of
// their own. Then every repeat carries, link for link, what the simulated period carries.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "collectives/schedule.hpp"

namespace podsim::collectives {

/// Whether the routes from `src` to `dst` and from `other_src` to `other_dst` cross as many
/// links, of the same bandwidth and latency hop by hop.
bool alike_routes(const topology::Topology& topo, VertexId src, VertexId dst, VertexId other_src, VertexId other_dst);

class LinkImageBuilder {
 public:
  explicit LinkImageBuilder(const topology::Topology& topo) : topo_(topo) {}

  /// The route from `src` to `dst`, simulated, stands in repeat `repeat` for the route from
  /// `image_src` to `image_dst` (a route stands for itself in its own repeat). False when
  /// the routes differ in hop count or in a hop's bandwidth or latency.
  bool pair(VertexId src, VertexId dst, VertexId image_src, VertexId image_dst, std::uint32_t repeat);

  /// Every (simulated link, image) pair and every (simulated hop, image) pair, sorted; nothing
  /// when a simulated link would stand for two links in one repeat, or a link would be stood
  /// for twice (two repeats, or two of the period's links, share it).
  std::optional<Schedule::Images> images();

 private:
  struct Pairing {
    topology::LinkId simulated;
    std::uint32_t repeat;
    topology::LinkId image;
  };
  const topology::Topology& topo_;
  std::vector<Pairing> pairings_;
  std::vector<Schedule::HopImage> hops_;
  std::unordered_map<std::uint64_t, std::vector<topology::LinkId>> simulated_routes_;  // the period's few
};

}  // namespace podsim::collectives
