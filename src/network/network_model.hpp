#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/simulator.hpp"
#include "network/network_spec.hpp"
#include "topology/topology.hpp"

namespace podsim::network {

using topology::ChipId;

/// Told when a transfer has completely arrived at its destination.
class TransferListener {
 public:
  /// `tag` is the value given to NetworkModel::send.
  virtual void transfer_done(core::Simulator& sim, std::uint64_t tag) = 0;

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

  /// Starts moving `bytes` from `src` to `dst` now; the listener hears `tag` when the last
  /// byte has arrived. A zero-byte send still pays the route latency.
  virtual void send(core::Simulator& sim, ChipId src, ChipId dst, std::uint64_t bytes,
                    std::uint64_t tag) = 0;

  /// Bytes and busy time per directed link (index = LinkId), accumulated since creation.
  virtual const std::vector<LinkUsage>& link_usage() const = 0;
};

/// Number of entity ids a network model of `topo` uses.
std::uint32_t network_entity_count(const topology::Topology& topo);

/// The model `spec` asks for. `topo` and `listener` must outlive it; it binds its entity
/// ids [first_entity, first_entity + network_entity_count(topo)) in `sim`.
std::unique_ptr<NetworkModel> make_network(const NetworkSpec& spec,
                                           const topology::Topology& topo,
                                           core::Simulator& sim, core::EntityId first_entity,
                                           TransferListener& listener);

}  // namespace podsim::network
