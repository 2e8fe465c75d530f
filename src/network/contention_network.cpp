#include "network/contention_network.hpp"

#include <algorithm>

namespace podsim::network {

namespace {
enum EventKind : std::uint32_t { kChunkHead = 1, kLinkFree = 2, kDelivered = 3 };
constexpr std::uint64_t kMaxChunkBytes = 1ull << 31;
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

ContentionNetwork::ContentionNetwork(const NetworkSpec& spec, const topology::Topology& topo,
                                     core::Simulator& sim, core::EntityId first_entity,
                                     TransferListener& listener)
    : spec_(spec),
      topo_(topo),
      vertex_entity0_(first_entity),
      link_entity0_(first_entity + topo.vertices()),
      listener_(listener),
      usage_(topo.links().size()),
      links_(topo.links().size()) {
  if (spec_.max_chunks == 0) spec_.max_chunks = 1;
  if (spec_.min_chunk_bytes == 0) spec_.min_chunk_bytes = 1;
  const std::uint32_t n = network_entity_count(topo);
  for (std::uint32_t i = 0; i < n; ++i) sim.bind(first_entity + i, *this);
}

std::uint32_t ContentionNetwork::new_transfer() {
  if (!free_transfers_.empty()) {
    const std::uint32_t id = free_transfers_.back();
    free_transfers_.pop_back();
    return id;
  }
  transfers_.emplace_back();
  return static_cast<std::uint32_t>(transfers_.size() - 1);
}

void ContentionNetwork::send(core::Simulator& sim, ChipId src, ChipId dst, std::uint64_t bytes,
                             std::uint64_t tag) {
  const std::uint32_t id = new_transfer();
  Transfer& t = transfers_[id];
  t.dst = dst;
  t.tag = tag;
  t.chunks_arrived = 0;
  if (src == dst) {
    t.chunks_total = 0;
    sim.schedule(sim.now(), vertex_entity0_ + src, vertex_entity0_ + dst, kDelivered, id);
    return;
  }
  const std::uint64_t wanted = (bytes + spec_.max_chunks - 1) / spec_.max_chunks;
  const std::uint64_t chunk = std::clamp<std::uint64_t>(wanted, spec_.min_chunk_bytes, kMaxChunkBytes);
  t.chunk_bytes = static_cast<std::uint32_t>(chunk);
  t.chunks_total = bytes == 0 ? 1 : static_cast<std::uint32_t>((bytes + chunk - 1) / chunk);
  t.bytes_to_inject = bytes;
  inject_next_chunk(sim, id, topo_.next_link(src, dst), true);
}

void ContentionNetwork::inject_next_chunk(core::Simulator& sim, std::uint32_t transfer_id,
                                          topology::LinkId link, bool start_if_idle) {
  Transfer& t = transfers_[transfer_id];
  const auto bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(t.chunk_bytes, t.bytes_to_inject));
  t.bytes_to_inject -= bytes;
  const Chunk chunk{transfer_id, bytes, sim.now(), true};
  if (start_if_idle) {
    offer(sim, link, chunk);
  } else {
    links_[link].queue.push(chunk);
  }
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
  sim.schedule(sim.now() + l.latency_ps, link_entity0_ + link, vertex_entity0_ + l.dst, kChunkHead,
               (static_cast<std::uint64_t>(chunk.transfer) << 32) | chunk.bytes,
               static_cast<std::uint64_t>(finish + l.latency_ps));
  const bool more_from_source = chunk.from_source && transfers_[chunk.transfer].bytes_to_inject > 0;
  ls.follow_transfer = more_from_source ? static_cast<std::int64_t>(chunk.transfer) : -1;
  if (!ls.queue.empty() || more_from_source) {
    ls.free_event_pending = true;
    sim.schedule(finish, link_entity0_ + link, link_entity0_ + link, kLinkFree);
  }
}

void ContentionNetwork::on_link_free(core::Simulator& sim, topology::LinkId link) {
  LinkState& ls = links_[link];
  ls.free_event_pending = false;
  if (ls.follow_transfer >= 0) {
    // The source's next chunk joins the back of the queue: sources sharing a link alternate.
    const auto id = static_cast<std::uint32_t>(ls.follow_transfer);
    ls.follow_transfer = -1;
    inject_next_chunk(sim, id, link, false);
  }
  if (!ls.queue.empty()) start(sim, link, ls.queue.pop());
}

void ContentionNetwork::on_chunk_head(core::Simulator& sim, topology::VertexId at,
                                      const core::Event& event) {
  const auto id = static_cast<std::uint32_t>(event.a >> 32);
  const auto bytes = static_cast<std::uint32_t>(event.a & 0xFFFF'FFFFu);
  const auto tail_ps = static_cast<SimTime>(event.b);
  Transfer& t = transfers_[id];
  if (at == t.dst) {
    // Chunks of one transfer follow one path through FIFO links: the last to arrive is the
    // last chunk, and its tail is the end of the transfer.
    if (++t.chunks_arrived == t.chunks_total) {
      sim.schedule(tail_ps, vertex_entity0_ + at, vertex_entity0_ + at, kDelivered, id);
    }
    return;
  }
  offer(sim, topo_.next_link(at, t.dst), Chunk{id, bytes, tail_ps, false});
}

void ContentionNetwork::handle(core::Simulator& sim, const core::Event& event) {
  switch (event.kind) {
    case kChunkHead:
      on_chunk_head(sim, event.target - vertex_entity0_, event);
      break;
    case kLinkFree:
      on_link_free(sim, event.target - link_entity0_);
      break;
    case kDelivered: {
      const auto id = static_cast<std::uint32_t>(event.a);
      const std::uint64_t tag = transfers_[id].tag;
      free_transfers_.push_back(id);
      listener_.transfer_done(sim, tag);
      break;
    }
    default:
      break;
  }
}

}  // namespace podsim::network
