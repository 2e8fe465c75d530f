#include "network/analytical_network.hpp"

#include <algorithm>
#include <limits>

namespace podsim::network {

AnalyticalNetwork::AnalyticalNetwork(const topology::Topology& topo, core::Simulator& sim,
                                     core::EntityId first_entity, TransferListener& listener)
    : topo_(topo), first_entity_(first_entity), listener_(listener), usage_(topo.links().size()) {
  for (std::uint32_t v = 0; v < topo.chips(); ++v) sim.bind(first_entity_ + v, *this);
}

void AnalyticalNetwork::send(core::Simulator& sim, ChipId src, ChipId dst, std::uint64_t bytes,
                             std::uint64_t tag) {
  SimTime latency_ps = 0;
  double bottleneck_Bps = std::numeric_limits<double>::infinity();
  topology::VertexId at = src;
  const auto size = static_cast<double>(bytes);
  while (at != dst) {
    const topology::LinkId id = topo_.next_link(at, dst);
    const topology::Link& link = topo_.link(id);
    latency_ps += link.latency_ps;
    bottleneck_Bps = std::min(bottleneck_Bps, link.bandwidth_Bps);
    usage_[id].bytes += size;
    usage_[id].busy_ps += transfer_time_ps(size, link.bandwidth_Bps);
    at = link.dst;
  }
  const SimTime serialize_ps = src == dst ? 0 : transfer_time_ps(size, bottleneck_Bps);
  // The completion belongs to the destination chip (its entity), as it would on MPI ranks.
  sim.schedule(sim.now() + latency_ps + serialize_ps, first_entity_ + src, first_entity_ + dst, 0,
               tag);
}

void AnalyticalNetwork::handle(core::Simulator& sim, const core::Event& event) {
  listener_.transfer_done(sim, event.a);
}

}  // namespace podsim::network
