#pragma once

// How many transfers a collective's lowering will add to a schedule, counted from the group's
// shape without building anything. The transfers are what a collective costs to simulate
// (each is an event, a dependency list, a route to walk; on the contention network a chunk
// of each per link); a ring all-reduce over n chips has 2(n−1)·n of them, so a group of 8191
// chips is 1.3 × 10^8 transfers, 5 GB of schedule. Commands refuse such work before they
// start (parallelism/work_bounds.hpp, runtime/step_work.hpp) instead of running out of memory.

#include <cstddef>

#include "collectives/collective_spec.hpp"
#include "collectives/group.hpp"
#include "collectives/lowering.hpp"

namespace podsim::collectives {

/// Transfers lower_collective(topo, spec, groups, …) adds for `groups` groups of the shape of
/// `group`, as the algorithm `spec` resolves to on it. Exact for ring, bidirectional ring,
/// torus, dimension-ordered and hierarchical lowerings; for NCCL's algorithms an upper bound
/// (a tree's, NVLS's and CollNet's pieces at their caps). With Symmetry::kPeriod a
/// collective alone on its schedule is counted as the period lower_collective simulates where
/// its shape allows one (a torus group's first lines, a hierarchical collective's first two
/// slices, an NCCL ring's first two nodes): its links are assumed alike, as on a uniform
/// machine. A double: the counts of absurd groups do not fit 64 bits. Throws InputError as
/// resolve_collective.
double estimate_transfers(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group,
                          std::size_t groups, Symmetry symmetry = Symmetry::kPeriod);

/// What a transfer of a lowering costs to build and simulate, relative to one of a ring:
/// NCCL's trees are built through maps of each chip's parent, children and dependencies
/// (measured on 2^20 single-GPU nodes, 2026-12-06: 1.3 µs and 160 bytes per transfer against
/// a ring's 0.3 µs and 48 bytes).
inline constexpr double kTreeTransferWeight = 4;

/// estimate_transfers weighted by what each transfer of the lowering costs (1 for all but
/// NCCL's tree and NVLS-tree: kTreeTransferWeight), in a ring's transfers.
double estimate_cost(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group,
                     std::size_t groups, Symmetry symmetry = Symmetry::kPeriod);

/// The most any collective of `op` on such groups can cost (as estimate_cost), whatever its
/// size: the size-independent algorithm podsim chooses, or on an NCCL cluster the largest of
/// the algorithms NCCL may choose there (each at its largest piece count).
double max_cost(const topology::Topology& topo, Op op, const Group& group, std::size_t groups);

}  // namespace podsim::collectives
