#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.hpp"
#include "network/network_model.hpp"

namespace podsim::collectives {

/// What running a schedule produced.
struct ScheduleResult {
  std::vector<SimTime> finish_ps;  ///< per collective: when its last transfer arrived
  std::vector<network::LinkUsage> links;
  std::uint64_t events = 0;  ///< engine events processed
};

/// Executes a schedule on a network: each transfer is sent the moment the transfers it
/// depends on have all arrived. Everything starts at time 0.
ScheduleResult run_schedule(const topology::Topology& topo, const network::NetworkSpec& net,
                            const Schedule& schedule);

}  // namespace podsim::collectives
