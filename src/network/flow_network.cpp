#include "network/flow_network.hpp"

#include <algorithm>
#include <cmath>

#include "util/error.hpp"

namespace podsim::network {

namespace {
enum EventKind : std::uint32_t { kStart = 1, kSolve = 2, kFinish = 3, kDelivered = 4, kDeparted = 5 };
}  // namespace

FlowNetwork::FlowNetwork(const topology::Topology& topo, core::Simulator& sim, core::EntityId first_entity,
                         TransferListener& listener)
    : topo_(topo),
      vertex_entity0_(first_entity),
      listener_(listener),
      usage_(topo.links().size()),
      sharing_(topo.links().size()) {
  bind_network_entities(topo, sim, first_entity, *this, {});
}

void FlowNetwork::send(core::Simulator& sim, VertexId src, VertexId dst, std::uint64_t bytes, std::uint32_t tag,
                       SimTime delay_ps) {
  if (delay_ps <= 0) {
    start(sim, src, dst, bytes, tag);
    return;
  }
  std::uint32_t id = 0;
  if (!free_waiting_.empty()) {
    id = free_waiting_.back();
    free_waiting_.pop_back();
  } else {
    id = static_cast<std::uint32_t>(waiting_.size());
    waiting_.emplace_back();
  }
  waiting_[id] = Waiting{dst, tag, bytes};
  const core::EntityId here = vertex_entity0_ + src;
  sim.schedule(sim.now() + delay_ps, here, here, kStart, id);
}

void FlowNetwork::start(core::Simulator& sim, VertexId src, VertexId dst, std::uint64_t bytes, std::uint32_t tag) {
  // The route, its latency and its slowest link.
  route_.clear();
  SimTime latency = 0;
  double slowest = 0;
  for (VertexId at = src; at != dst;) {
    const topology::LinkId id = topo_.next_link(at, dst);
    const topology::Link& l = topo_.link(id);
    latency += l.latency_ps;
    slowest = route_.empty() ? l.bandwidth_Bps : std::min(slowest, l.bandwidth_Bps);
    route_.push_back(id);
    at = l.dst;
  }
  if (route_.empty() || bytes == 0) {
    // Nothing to share: the last byte leaves now and arrives after the route's latency.
    const core::EntityId here = vertex_entity0_ + src;
    sim.schedule(sim.now(), here, here, kDeparted, tag);
    deliver(sim, src, dst, tag, sim.now() + latency);
    return;
  }
  const auto b = static_cast<double>(bytes);
  uses_.clear();
  for (const topology::LinkId link : route_) {
    const double bandwidth = topo_.link(link).bandwidth_Bps;
    usage_[link].bytes += b;
    usage_[link].busy_ps += transfer_time_ps(b, bandwidth);
    uses_.push_back({link, slowest / bandwidth});  // the share of the link it takes at full rate
  }
  const LinkSharing::ActivityId id = sharing_.add(uses_);
  if (flows_.size() <= id) flows_.resize(id + 1);
  flows_[id] = Flow{src, dst, tag, latency, static_cast<double>(transfer_time_ps(b, slowest)), 0, sim.now(), 0};
  want_solve(sim, src);
}

void FlowNetwork::want_solve(core::Simulator& sim, VertexId at) {
  // Starts and ends at one instant are solved together, once.
  if (solve_pending_) return;
  solve_pending_ = true;
  const core::EntityId here = vertex_entity0_ + at;
  sim.schedule(sim.now(), here, here, kSolve);
}

void FlowNetwork::resolve(core::Simulator& sim) {
  solve_pending_ = false;
  const SimTime now = sim.now();
  for (const LinkSharing::ActivityId id : sharing_.solve()) {
    Flow& f = flows_[id];
    f.left_ps = std::max(0.0, f.left_ps - f.rate * static_cast<double>(now - f.since));
    f.since = now;
    f.rate = sharing_.rate(id);
    f.version = ++versions_;  // the flow's earlier end event is stale now
    const double left = std::ceil(f.left_ps / f.rate);
    if (!(left <= static_cast<double>(kMaxStepPs - now))) {
      throw SimulationError("a transfer would end beyond the simulator's horizon of 2^60 ps");
    }
    const core::EntityId here = vertex_entity0_ + f.src;
    sim.schedule(now + static_cast<SimTime>(left), here, here, kFinish, id, f.version);
  }
}

void FlowNetwork::finish(core::Simulator& sim, LinkSharing::ActivityId id) {
  const Flow f = flows_[id];
  sharing_.remove(id);
  if (sharing_.active() > 0) want_solve(sim, f.src);
  deliver(sim, f.src, f.dst, f.tag, sim.now() + f.latency_ps);
  listener_.transfer_departed(sim, f.tag);  // this event is at the source, now
}

void FlowNetwork::deliver(core::Simulator& sim, VertexId src, VertexId dst, std::uint32_t tag, SimTime arrival_ps) {
  sim.schedule(arrival_ps + listener_.arrival_delay_ps(tag), vertex_entity0_ + src, vertex_entity0_ + dst, kDelivered,
               tag);
}

void FlowNetwork::handle(core::Simulator& sim, const core::Event& event) {
  switch (event.kind) {
    case kStart: {
      const auto id = static_cast<std::uint32_t>(event.a);
      const Waiting w = waiting_[id];
      free_waiting_.push_back(id);
      start(sim, event.target - vertex_entity0_, w.dst, w.bytes, w.tag);
      break;
    }
    case kSolve:
      resolve(sim);
      break;
    case kFinish: {
      const auto id = static_cast<LinkSharing::ActivityId>(event.a);
      if (flows_[id].version == event.b) finish(sim, id);
      break;
    }
    case kDelivered:
      listener_.transfer_done(sim, static_cast<std::uint32_t>(event.a));
      break;
    case kDeparted:
      listener_.transfer_departed(sim, static_cast<std::uint32_t>(event.a));
      break;
    default:
      break;
  }
}

}  // namespace podsim::network
