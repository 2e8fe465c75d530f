#pragma once

// Internal to collectives: NCCL's algorithms as transfers (nccl_lowering.cpp).

#include <optional>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "collectives/group.hpp"
#include "collectives/lowering.hpp"
#include "collectives/nccl_tuning.hpp"
#include "collectives/schedule.hpp"

namespace podsim::collectives::detail {

/// Pieces an NCCL broadcast, NVLS, NVLS-tree or CollNet collective is cut into at most.
inline constexpr int kMaxPieces = 64;
/// Trees: NCCL pipelines them in chunks of one step; podsim follows up to this many
/// transfers per tree collective (pieces × trees × 2 sends per chip), then uses larger pieces.
inline constexpr double kTreeTransferBudget = 1 << 19;

/// The communicator NCCL would see for `group`, when `topo` is a GPU cluster whose
/// collectives NCCL runs (a topology with an nccl section); nullopt otherwise.
std::optional<nccl::System> nccl_system(const topology::Topology& topo, const Group& group);

/// Pieces NCCL's tree cuts each of its trees' `per_tree` bytes into on a group of `chips`
/// chips and `trees` trees (channels × trees per channel) with protocol `p`: one per NCCL
/// step, at most what keeps the collective near 2^19 transfers (4 to 2048).
int tree_pieces(double per_tree, nccl::Proto p, double chips, double trees);

/// Pieces of a pipelined NCCL broadcast of `bytes` with protocol `p`: one per NCCL step, at
/// most 64.
int broadcast_pieces(double bytes, nccl::Proto p);

/// Lowers NCCL's `spec.algorithm` (ring, tree, nvls, nvls-tree, collnet) with protocol
/// `spec.protocol` (resolved, not kAuto) on every group at once. `symmetry`: whether a ring
/// alone on its schedule may run as its two-node period (ring_images).
void lower_nccl(const topology::Topology& topo, const CollectiveSpec& spec, const std::vector<Group>& groups,
                Symmetry symmetry, const Frontier& start, Frontier& end, Schedule& schedule);

}  // namespace podsim::collectives::detail
