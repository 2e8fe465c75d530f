#include "network/analytical_network.hpp"

#include <algorithm>
#include <limits>

namespace podsim::network {

namespace {
enum EventKind : std::uint32_t { kDeparted = 1, kArrived = 2 };
}

AnalyticalNetwork::AnalyticalNetwork(const topology::Topology& topo, core::Simulator& sim, core::EntityId first_entity,
                                     TransferListener& listener, const LocalVertices& local)
    : topo_(topo), first_entity_(first_entity), listener_(listener), usage_(topo.links().size()) {
  bind_network_entities(topo, sim, first_entity, *this, local);
}

void AnalyticalNetwork::send(core::Simulator& sim, VertexId src, VertexId dst, std::uint64_t bytes, std::uint32_t tag,
                             SimTime delay_ps) {
  SimTime latency_ps = 0;
  double bottleneck_Bps = std::numeric_limits<double>::infinity();
  topology::VertexId at = src;
  const auto size = static_cast<double>(bytes);
  while (at != dst) {
    const topology::LinkId id = topo_.next_link(at, dst);
    const topology::Link& link = topo_.link(id);
    latency_ps += link.latency_ps;
    bottleneck_Bps = std::min(bottleneck_Bps, link.bandwidth_Bps);
    // Loads are kept where the link lives: the whole route is charged here, at the source,
    // so only links of the source's process get them (see link_usage()).
    usage_[id].bytes += size;
    usage_[id].busy_ps += transfer_time_ps(size, link.bandwidth_Bps);
    at = link.dst;
  }
  const SimTime departed = sim.now() + delay_ps + (src == dst ? 0 : transfer_time_ps(size, bottleneck_Bps));
  const core::EntityId from = first_entity_ + src;
  sim.schedule(departed, from, from, kDeparted, tag);
  // The arrival belongs to the destination chip, which may be simulated elsewhere: its
  // delay is at least one link latency of the route.
  sim.schedule(departed + latency_ps + listener_.arrival_delay_ps(tag), from, first_entity_ + dst, kArrived, tag);
}

void AnalyticalNetwork::handle(core::Simulator& sim, const core::Event& event) {
  const auto tag = static_cast<std::uint32_t>(event.a);
  if (event.kind == kDeparted) {
    listener_.transfer_departed(sim, tag);
  } else {
    listener_.transfer_done(sim, tag);
  }
}

}  // namespace podsim::network
