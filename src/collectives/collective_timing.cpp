#include "collectives/collective_timing.hpp"

#include <algorithm>

#include "collectives/lowering.hpp"
#include "collectives/schedule_runner.hpp"

namespace podsim::collectives {

CollectiveTiming time_collective(const topology::Topology& topo, const network::NetworkSpec& net,
                                 const CollectiveSpec& spec, const std::vector<Group>& groups) {
  SequentialExecutor here;
  return time_collective(topo, net, spec, groups, here);
}

CollectiveTiming time_collective(const topology::Topology& topo, const network::NetworkSpec& net,
                                 const CollectiveSpec& spec, const std::vector<Group>& groups,
                                 ScheduleExecutor& executor) {
  CollectiveTiming t;
  const Resolved resolved = resolve_collective(topo, spec, groups.front());
  t.algorithm = resolved.algorithm;
  t.protocol = resolved.protocol;
  t.nccl_predicted_s = resolved.nccl_predicted_s;
  t.pieces = resolved.pieces;
  t.group_size = groups.front().size();
  t.groups = static_cast<std::uint32_t>(groups.size());
  t.bytes = spec.bytes;
  Schedule schedule;
  lower_collective(topo, CollectiveSpec{spec.op, t.algorithm, spec.bytes, resolved.protocol}, groups, 0, schedule);
  const ScheduleResult result = executor.run(topo, net, schedule);
  t.transfers = schedule.size();
  t.events = result.events;
  // The analytical network times each transfer alone; where groups (or steps) share a link
  // the collective still cannot end before that link has carried all it must. The floor is
  // inactive when nothing shares (a link's busy time is below the schedule's), and the
  // contention-aware network never needs it.
  SimTime busiest = 0;
  for (const auto& u : result.links) busiest = std::max(busiest, u.busy_ps);
  t.time_s = to_seconds(std::max(result.finish_ps[0], busiest));
  t.link_bound = busiest > result.finish_ps[0];
  if (t.time_s > 0) {
    t.algbw_Bps = static_cast<double>(spec.bytes) / t.time_s;
    t.busbw_Bps = t.algbw_Bps * bus_bandwidth_factor(spec.op, t.group_size);
    t.max_link_utilization = to_seconds(busiest) / t.time_s;
  }
  return t;
}

}  // namespace podsim::collectives
