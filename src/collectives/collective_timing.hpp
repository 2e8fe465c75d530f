#pragma once

#include <cstdint>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "collectives/group.hpp"
#include "collectives/schedule_runner.hpp"
#include "network/network_spec.hpp"

namespace podsim::collectives {

/// One nccl-tests-style measurement of a simulated collective.
struct CollectiveTiming {
  Algorithm algorithm = Algorithm::kAuto;  ///< what kAuto resolved to
  Protocol protocol = Protocol::kAuto;     ///< NCCL's protocol; kAuto when NCCL does not run it
  double nccl_predicted_s = -1;            ///< NCCL's tuning-model time (< 0: not NCCL)
  int pieces = 1;                          ///< a hierarchical collective's pieces (Resolved)
  std::uint32_t group_size = 0;
  std::uint32_t groups = 0;
  std::uint64_t bytes = 0;
  double time_s = 0;     ///< until the last transfer of the last group arrived
  double algbw_Bps = 0;  ///< bytes / time_s
  double busbw_Bps = 0;  ///< algbw × bus_bandwidth_factor(op, group_size)
  /// Busy time of the busiest link over time_s (0..1).
  double max_link_utilization = 0;
  /// The analytical network's transfers, each timed alone, ended before a link they share
  /// had carried its load: time_s is that link's busy time instead (utilization 1).
  bool link_bound = false;
  std::uint64_t transfers = 0;
  std::uint64_t events = 0;
};

/// Lowers `spec` on every group at once (all groups run concurrently, as in a sharded
/// program) and simulates it on the network `net` with `executor` (in this process by
/// default; split over MPI processes by partition::MpiExecutor).
CollectiveTiming time_collective(const topology::Topology& topo, const network::NetworkSpec& net,
                                 const CollectiveSpec& spec, const std::vector<Group>& groups);
CollectiveTiming time_collective(const topology::Topology& topo, const network::NetworkSpec& net,
                                 const CollectiveSpec& spec, const std::vector<Group>& groups,
                                 ScheduleExecutor& executor);

}  // namespace podsim::collectives
