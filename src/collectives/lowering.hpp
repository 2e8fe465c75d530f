#pragma once

#include <vector>

#include "collectives/collective_spec.hpp"
#include "collectives/group.hpp"
#include "collectives/schedule.hpp"

namespace podsim::collectives {

/// Whether a lowering may simulate one period of a symmetric collective (lower_collective).
enum class Symmetry { kPeriod, kWhole };

/// What a collective runs as: the algorithm, and on an NCCL cluster the protocol NCCL
/// uses and what NCCL's own model predicts.
struct Resolved {
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kAuto;  ///< kAuto when NCCL does not run it
  double nccl_predicted_s = -1;         ///< NCCL's tuning-model time; < 0 when not NCCL
  /// SMs NCCL's kernel holds while it runs (one CTA per channel, nccl::ctas); 0 when not NCCL.
  int nccl_ctas = 0;
  /// Pieces a hierarchical collective is cut into (docs/collectives.md, "Hierarchical
  /// collectives in pieces"); 1 for every other algorithm.
  int pieces = 1;
};

/// What `spec` resolves to on `group`: kAuto becomes the machine's choice (the topology's
/// collective policy; NCCL's tuning model on an NCCL cluster, choosing the protocol too;
/// else hierarchical, torus or ring). Throws InputError, with the reason and what to use
/// instead, when the algorithm cannot run this operation on this group (e.g. a
/// bidirectional ring on 2 chips, the torus algorithm across DCN, NVLS without NVSwitch SHARP).
Resolved resolve_collective(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group);

/// SMs NCCL's send/recv kernel holds on each of two GPUs `pair` (nccl::p2p_ctas); 0 when
/// NCCL does not run on this machine.
int nccl_p2p_ctas(const topology::Topology& topo, const Group& pair);

/// resolve_collective(...).algorithm.
Algorithm resolve_algorithm(const topology::Topology& topo, const CollectiveSpec& spec,
                            const Group& group);

/// Appends `spec` running on every group of `groups` at once to `schedule`, as collective
/// number `collective_index`. All groups must span the same axes. With Symmetry::kPeriod (the
/// default) a collective alone on an empty schedule whose parts are exact copies of each other
/// on links of their own is lowered as one period that stands for the rest, its loads mapped
/// to theirs by the schedule's link images (the same times and link loads, far fewer
/// transfers): a torus collective on the first line along each axis, a hierarchical one on
/// its first two slices or nodes, an NCCL ring over an even number of nodes on two of them.
/// Symmetry::kWhole lowers every transfer (for a caller that reads each group's own).
void lower_collective(const topology::Topology& topo, const CollectiveSpec& spec,
                      const std::vector<Group>& groups, std::uint32_t collective_index,
                      Schedule& schedule, Symmetry symmetry = Symmetry::kPeriod);

/// Whether lower_collective may lower several groups of `spec` on one schedule as one
/// symmetric period (the hierarchical lowering's first two slices; the other lowerings reduce
/// a group alone).
bool period_spans_groups(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group);

/// Pieces a pipelined broadcast of `bytes` over a chain of `n` chips is cut into: the
/// integer near sqrt((n−2)·S·/(B·α)) that balances per-piece latency against pipeline
/// fill, between 1 and 64. Time ≈ (n−1)·α + (n−2+P)·S/(P·B).
int broadcast_pieces(std::uint32_t n, std::uint64_t bytes, double bandwidth_Bps,
                     SimTime latency_ps);

}  // namespace podsim::collectives
