#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/simulator.hpp"
#include "network/network_spec.hpp"
#include "topology/topology.hpp"

namespace podsim::network {

using topology::ChipId;
using topology::VertexId;

/// Told what happens to transfers. Each call runs where the event happens: departure at the
/// source chip, arrival at the destination chip (on different ranks when partitioned).
class TransferListener {
 public:
  /// The last byte of transfer `tag` has left its source chip (its send buffer is free).
  virtual void transfer_departed(core::Simulator& sim, std::uint32_t tag) = 0;
  /// The last byte of transfer `tag` has arrived at its destination.
  virtual void transfer_done(core::Simulator& sim, std::uint32_t tag) = 0;
  /// Software latency at the destination before transfer `tag` counts as arrived (a
  /// protocol's flag and fence, pipelined: neither link nor sender waits for it). Asked
  /// where the transfer arrives; the same on every process.
  virtual SimTime arrival_delay_ps(std::uint32_t /*tag*/) const { return 0; }

 protected:
  ~TransferListener() = default;
};

/// What one directed link carried during a run.
struct LinkUsage {
  double bytes = 0;
  SimTime busy_ps = 0;  ///< time spent serializing bytes
};

/// Moves bytes between chips over a topology. Implementations own a contiguous range of
/// entity ids starting at `first_entity` (see entity_count()).
class NetworkModel {
 public:
  virtual ~NetworkModel() = default;

  /// Starts moving `bytes` from `src` (a vertex this process simulates: a chip, or a
  /// switch that reduces or multicasts in the network) to `dst` after `delay_ps` (software
  /// time at the source, e.g. a protocol's per-step overhead: no link is busy during it); the
  /// listener hears `tag` when the last byte has left and when it has arrived. A zero-byte
  /// send still pays the route latency.
  virtual void send(core::Simulator& sim, VertexId src, VertexId dst, std::uint64_t bytes,
                    std::uint32_t tag, SimTime delay_ps) = 0;
  /// The same, starting now.
  void send(core::Simulator& sim, VertexId src, VertexId dst, std::uint64_t bytes, std::uint32_t tag) {
    send(sim, src, dst, bytes, tag, 0);
  }

  /// Bytes and busy time per directed link (index = LinkId), accumulated since creation;
  /// zero for links this process does not simulate.
  virtual const std::vector<LinkUsage>& link_usage() const = 0;
};

/// Which vertices (chips and switches) this process simulates; a directed link lives with
/// its source vertex. Empty = all of them.
using LocalVertices = std::vector<char>;

/// The model `spec` asks for; a contention-aware spec still at kAuto runs as chunks (callers
/// resolve it by the schedule, collectives::contention_model). The flow model runs only
/// whole (`local` empty). `topo` and `listener` must outlive it. It uses entity ids
/// [first_entity, first_entity + vertices + links): vertices, then links; it
/// binds the local ones in `sim` and marks the others remote.
std::unique_ptr<NetworkModel> make_network(const NetworkSpec& spec,
                                           const topology::Topology& topo,
                                           core::Simulator& sim, core::EntityId first_entity,
                                           TransferListener& listener,
                                           const LocalVertices& local = {});

/// Binds (or marks remote) the network's entities as `local` says; used by the models.
void bind_network_entities(const topology::Topology& topo, core::Simulator& sim,
                           core::EntityId first_entity, core::EventHandler& handler,
                           const LocalVertices& local);

}  // namespace podsim::network
