#pragma once

// Internal to collectives: NCCL's algorithms as transfers (nccl_lowering.cpp).

#include <optional>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "collectives/group.hpp"
#include "collectives/nccl_tuning.hpp"
#include "collectives/schedule.hpp"

namespace podsim::collectives::detail {

/// The communicator NCCL would see for `group`, when `topo` is a GPU cluster whose
/// collectives NCCL runs (a topology with an nccl section); nullopt otherwise.
std::optional<nccl::System> nccl_system(const topology::Topology& topo, const Group& group);

/// Lowers NCCL's `spec.algorithm` (ring, tree, nvls, nvls-tree, collnet) with protocol
/// `spec.protocol` (resolved, not kAuto) on every group at once.
void lower_nccl(const topology::Topology& topo, const CollectiveSpec& spec, const std::vector<Group>& groups,
                const Frontier& start, Frontier& end, Schedule& schedule);

}  // namespace podsim::collectives::detail
