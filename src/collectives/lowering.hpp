#pragma once

#include <vector>

#include "collectives/collective_spec.hpp"
#include "collectives/group.hpp"
#include "collectives/schedule.hpp"

namespace podsim::collectives {

/// The algorithm `spec.algorithm` resolves to for `group` (kAuto becomes a real one).
/// Throws InputError, with the reason and what to use instead, when the algorithm cannot
/// run this operation on this group (e.g. a bidirectional ring on 2 chips, the torus
/// algorithm across DCN).
Algorithm resolve_algorithm(const topology::Topology& topo, const CollectiveSpec& spec,
                            const Group& group);

/// Appends `spec` running on every group of `groups` at once to `schedule`, as collective
/// number `collective_index`. All groups must span the same axes.
void lower_collective(const topology::Topology& topo, const CollectiveSpec& spec,
                      const std::vector<Group>& groups, std::uint32_t collective_index,
                      Schedule& schedule);

/// Pieces a pipelined broadcast of `bytes` over a chain of `n` chips is cut into: the
/// integer near sqrt((n−2)·S·/(B·α)) that balances per-piece latency against pipeline
/// fill, between 1 and 64. Time ≈ (n−1)·α + (n−2+P)·S/(P·B).
int broadcast_pieces(std::uint32_t n, std::uint64_t bytes, double bandwidth_Bps,
                     SimTime latency_ps);

}  // namespace podsim::collectives
