#pragma once

#include <cstdint>
#include <vector>

#include "network/network_model.hpp"

namespace podsim::network {

/// Links with bandwidth and latency, shared by the transfers that cross them.
///
/// A message is cut into chunks. Each directed link sends one chunk at a time, first come
/// first served; a source puts its next chunk at the back of its first link's queue only
/// when the previous one has left, so the transfers leaving one chip take turns (a fair
/// share of the link). Chunks are forwarded cut-through: a chunk may start on the next
/// link as soon as its head arrives, but cannot finish before its tail has arrived. So an
/// uncontended message takes exactly Σ latency + bytes / bandwidth, like the analytical
/// model, while contended links slow every transfer that crosses them.
///
/// State is local: a transfer's bookkeeping lives at its source chip, a link's queue with
/// the link (on its source vertex), and every chunk event carries what the next vertex
/// needs (destination, size, whether it is the last chunk, the transfer's tag), delayed by
/// at least one link latency. So links and chips can be simulated by different processes.
class ContentionNetwork final : public NetworkModel, private core::EventHandler {
 public:
  ContentionNetwork(const NetworkSpec& spec, const topology::Topology& topo, core::Simulator& sim,
                    core::EntityId first_entity, TransferListener& listener, const LocalVertices& local);

  using NetworkModel::send;
  void send(core::Simulator& sim, VertexId src, VertexId dst, std::uint64_t bytes, std::uint32_t tag,
            SimTime delay_ps) override;
  const std::vector<LinkUsage>& link_usage() const override { return usage_; }

 private:
  /// A transfer as its source sees it.
  struct Source {
    VertexId dst = 0;
    std::uint32_t tag = 0;
    std::uint64_t bytes_to_inject = 0;  ///< not yet handed to the first link
    std::uint32_t chunk_bytes = 0;
  };
  struct Chunk {
    std::uint32_t tag = 0;
    std::uint32_t bytes = 0;
    VertexId dst = 0;
    SimTime tail_ps = 0;       ///< when its last byte is (or will be) at the link's source
    bool last = false;         ///< the transfer's final chunk
    std::int64_t source = -1;  ///< index in sources_ when it is being injected by this chip
  };
  /// FIFO of chunks waiting for a link (a vector with a moving head: no per-push allocation).
  class ChunkQueue {
   public:
    bool empty() const { return head_ == items_.size(); }
    void push(const Chunk& c) { items_.push_back(c); }
    Chunk pop();

   private:
    std::vector<Chunk> items_;
    std::size_t head_ = 0;
  };
  struct LinkState {
    ChunkQueue queue;
    SimTime busy_until = 0;
    bool free_event_pending = false;
    /// Source whose next chunk this link's source injects when the current one leaves.
    std::int64_t follow_source = -1;
  };

  void handle(core::Simulator& sim, const core::Event& event) override;
  void on_chunk_head(core::Simulator& sim, topology::VertexId at, const core::Event& event);
  void on_link_free(core::Simulator& sim, topology::LinkId link);
  Chunk next_chunk(core::Simulator& sim, std::uint32_t source);
  void offer(core::Simulator& sim, topology::LinkId link, const Chunk& chunk);
  void start(core::Simulator& sim, topology::LinkId link, const Chunk& chunk);
  std::uint32_t new_source();

  NetworkSpec spec_;
  const topology::Topology& topo_;
  core::EntityId vertex_entity0_;
  core::EntityId link_entity0_;
  TransferListener& listener_;
  std::vector<LinkUsage> usage_;
  std::vector<LinkState> links_;
  std::vector<Source> sources_;
  std::vector<std::uint32_t> free_sources_;
};

}  // namespace podsim::network
