#include "collectives/nccl_emitter.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace podsim::collectives::detail {

NcclEmitter::NcclEmitter(const topology::Topology& topo, Schedule& schedule, const Frontier& start, double wire_factor,
                         SimTime start_ps)
    : topo_(topo),
      schedule_(schedule),
      start_(start),
      wire_factor_(wire_factor),
      start_ps_(start_ps),
      last_on_link_(topo.links().size(), -1),
      last_sent_(topo.vertices(), -1),
      arrivals_(topo.chips()) {}

TransferIndex NcclEmitter::send(VertexId src, VertexId dst, double payload, std::vector<TransferIndex> deps,
                                double rate_Bps, SimTime step_latency_ps) {
  // The route: its first link (the FIFO), its wire latency and its slowest link.
  const topology::LinkId first = topo_.next_link(src, dst);
  SimTime route_ps = 0;
  double bottleneck_Bps = std::numeric_limits<double>::infinity();
  for (VertexId at = src; at != dst;) {
    const topology::Link& l = topo_.link(topo_.next_link(at, dst));
    route_ps += l.latency_ps;
    bottleneck_Bps = std::min(bottleneck_Bps, l.bandwidth_Bps);
    at = l.dst;
  }
  const double wire = std::max(1.0, std::ceil(payload * wire_factor_));
  SimTime delay_ps = 0;
  if (rate_Bps > 0) {
    // Slower than the wire: the sender waits for the difference before the bytes leave.
    delay_ps = std::max<SimTime>(0, transfer_time_ps(payload, rate_Bps) - transfer_time_ps(wire, bottleneck_Bps));
  }
  const bool first_send = src < topo_.chips() && last_sent_[src] < 0;
  if (first_send) {
    if (deps.empty()) delay_ps += start_ps_;
    const auto ready = start_.ready(src);
    deps.insert(deps.end(), ready.begin(), ready.end());
  }
  if (last_on_link_[first] >= 0) deps.push_back(static_cast<TransferIndex>(last_on_link_[first]));
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  const TransferIndex t = schedule_.add(src, dst, static_cast<std::uint64_t>(wire), deps, delay_ps,
                                        std::max<SimTime>(0, step_latency_ps - route_ps));
  last_on_link_[first] = t;
  last_sent_[src] = t;
  if (dst < topo_.chips()) {
    // Transfers from one source to one chip take one route in the order they were added.
    auto& from = arrivals_[dst];
    const auto it = std::find_if(from.begin(), from.end(), [&](const auto& e) { return e.first == src; });
    if (it == from.end()) {
      from.emplace_back(src, t);
    } else {
      it->second = t;
    }
  }
  return t;
}

void NcclEmitter::finish(Frontier& end) const {
  for (VertexId c = 0; c < topo_.chips(); ++c) {
    if (last_sent_[c] >= 0) end.add(c, static_cast<TransferIndex>(last_sent_[c]));
  }
  for (VertexId c = 0; c < topo_.chips(); ++c) {
    for (const auto& [src, t] : arrivals_[c]) end.add(c, t);
  }
}

}  // namespace podsim::collectives::detail
