#include "network/contention_network.hpp"

#include <algorithm>

namespace podsim::network {

namespace {
// Event kinds: the low 4 bits; a chunk head also carries a last-chunk flag (bit 4) and its
// destination chip (bits 8..31).
enum EventKind : std::uint32_t { kChunkHead = 1, kLinkFree = 2, kDelivered = 3, kDeparted = 4, kStart = 5 };
constexpr std::uint32_t kLastChunk = 1u << 4;

std::uint32_t chunk_kind(bool last, VertexId dst) { return kChunkHead | (last ? kLastChunk : 0) | (dst << 8); }
}  // namespace

ContentionNetwork::Chunk ContentionNetwork::ChunkQueue::pop() {
  const Chunk c = items_[head_++];
  if (head_ == items_.size()) {
    items_.clear();
    head_ = 0;
  } else if (head_ > 64 && head_ * 2 > items_.size()) {
    items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  return c;
}

ContentionNetwork::ContentionNetwork(const NetworkSpec& spec, const topology::Topology& topo, core::Simulator& sim,
                                     core::EntityId first_entity, TransferListener& listener,
                                     const LocalVertices& local)
    : spec_(spec),
      topo_(topo),
      vertex_entity0_(first_entity),
      link_entity0_(first_entity + topo.vertices()),
      listener_(listener),
      usage_(topo.links().size()),
      links_(topo.links().size()) {
  bind_network_entities(topo, sim, first_entity, *this, local);
}

std::uint32_t ContentionNetwork::new_source() {
  if (!free_sources_.empty()) {
    const std::uint32_t id = free_sources_.back();
    free_sources_.pop_back();
    return id;
  }
  sources_.emplace_back();
  return static_cast<std::uint32_t>(sources_.size() - 1);
}

void ContentionNetwork::send(core::Simulator& sim, VertexId src, VertexId dst, std::uint64_t bytes, std::uint32_t tag,
                             SimTime delay_ps) {
  const core::EntityId here = vertex_entity0_ + src;
  if (src == dst) {
    sim.schedule(sim.now() + delay_ps, here, here, kDeparted, tag);
    sim.schedule(sim.now() + delay_ps + listener_.arrival_delay_ps(tag), here, here, kDelivered, tag);
    return;
  }
  const std::uint32_t id = new_source();
  Source& s = sources_[id];
  s.dst = dst;
  s.tag = tag;
  s.chunk_bytes = static_cast<std::uint32_t>(chunk_bytes(spec_, bytes));
  s.bytes_to_inject = bytes;
  if (delay_ps > 0) {
    // The source starts injecting later; the event stays at this vertex.
    sim.schedule(sim.now() + delay_ps, here, here, kStart, id);
    return;
  }
  offer(sim, topo_.next_link(src, dst), next_chunk(sim, id));
}

ContentionNetwork::Chunk ContentionNetwork::next_chunk(core::Simulator& sim, std::uint32_t source) {
  Source& s = sources_[source];
  const auto bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(s.chunk_bytes, s.bytes_to_inject));
  s.bytes_to_inject -= bytes;
  return Chunk{s.tag, bytes, s.dst, sim.now(), s.bytes_to_inject == 0, static_cast<std::int64_t>(source)};
}

void ContentionNetwork::offer(core::Simulator& sim, topology::LinkId link, const Chunk& chunk) {
  LinkState& ls = links_[link];
  if (!ls.free_event_pending && ls.busy_until <= sim.now()) {
    start(sim, link, chunk);
    return;
  }
  ls.queue.push(chunk);
  if (!ls.free_event_pending) {
    ls.free_event_pending = true;
    sim.schedule(ls.busy_until, link_entity0_ + link, link_entity0_ + link, kLinkFree);
  }
}

void ContentionNetwork::start(core::Simulator& sim, topology::LinkId link, const Chunk& chunk) {
  const topology::Link& l = topo_.link(link);
  LinkState& ls = links_[link];
  const SimTime serialize_ps = transfer_time_ps(chunk.bytes, l.bandwidth_Bps);
  // Cut-through: the chunk cannot leave faster than its tail reaches this link.
  const SimTime finish = std::max(sim.now() + serialize_ps, chunk.tail_ps);
  ls.busy_until = finish;
  usage_[link].bytes += chunk.bytes;
  usage_[link].busy_ps += serialize_ps;
  const core::EntityId self = link_entity0_ + link;
  sim.schedule(sim.now() + l.latency_ps, self, vertex_entity0_ + l.dst, chunk_kind(chunk.last, chunk.dst),
               (static_cast<std::uint64_t>(chunk.tag) << 32) | chunk.bytes, static_cast<std::uint64_t>(finish + l.latency_ps));
  bool more_from_source = false;
  if (chunk.source >= 0) {
    const auto id = static_cast<std::uint32_t>(chunk.source);
    if (chunk.last) {
      // The last byte leaves the source when this chunk is through its first link.
      sim.schedule(finish, self, vertex_entity0_ + l.src, kDeparted, chunk.tag);
      free_sources_.push_back(id);
    } else {
      more_from_source = true;
    }
  }
  ls.follow_source = more_from_source ? chunk.source : -1;
  if (!ls.queue.empty() || more_from_source) {
    ls.free_event_pending = true;
    sim.schedule(finish, self, self, kLinkFree);
  }
}

void ContentionNetwork::on_link_free(core::Simulator& sim, topology::LinkId link) {
  LinkState& ls = links_[link];
  ls.free_event_pending = false;
  if (ls.follow_source >= 0) {
    // The source's next chunk joins the back of the queue: sources sharing a link alternate.
    const auto id = static_cast<std::uint32_t>(ls.follow_source);
    ls.follow_source = -1;
    ls.queue.push(next_chunk(sim, id));
  }
  if (!ls.queue.empty()) start(sim, link, ls.queue.pop());
}

void ContentionNetwork::on_chunk_head(core::Simulator& sim, topology::VertexId at, const core::Event& event) {
  const Chunk chunk{static_cast<std::uint32_t>(event.a >> 32), static_cast<std::uint32_t>(event.a & 0xFFFF'FFFFu),
                    event.kind >> 8, static_cast<SimTime>(event.b), (event.kind & kLastChunk) != 0, -1};
  if (at == chunk.dst) {
    // Chunks of one transfer follow one path through FIFO links: the last to arrive is the
    // last chunk, and its tail is the end of the transfer.
    if (chunk.last) {
      const core::EntityId here = vertex_entity0_ + at;
      sim.schedule(chunk.tail_ps + listener_.arrival_delay_ps(chunk.tag), here, here, kDelivered, chunk.tag);
    }
    return;
  }
  offer(sim, topo_.next_link(at, chunk.dst), chunk);
}

void ContentionNetwork::handle(core::Simulator& sim, const core::Event& event) {
  switch (event.kind & 0xFu) {
    case kChunkHead:
      on_chunk_head(sim, event.target - vertex_entity0_, event);
      break;
    case kLinkFree:
      on_link_free(sim, event.target - link_entity0_);
      break;
    case kDelivered:
      listener_.transfer_done(sim, static_cast<std::uint32_t>(event.a));
      break;
    case kDeparted:
      listener_.transfer_departed(sim, static_cast<std::uint32_t>(event.a));
      break;
    case kStart: {
      const auto id = static_cast<std::uint32_t>(event.a);
      offer(sim, topo_.next_link(event.target - vertex_entity0_, sources_[id].dst), next_chunk(sim, id));
      break;
    }
    default:
      break;
  }
}

}  // namespace podsim::network
