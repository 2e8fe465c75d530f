#include "network/network_model.hpp"

#include "network/analytical_network.hpp"
#include "network/contention_network.hpp"

namespace podsim::network {

std::uint32_t network_entity_count(const topology::Topology& topo) {
  return topo.vertices() + static_cast<std::uint32_t>(topo.links().size());
}

std::unique_ptr<NetworkModel> make_network(const NetworkSpec& spec,
                                           const topology::Topology& topo,
                                           core::Simulator& sim, core::EntityId first_entity,
                                           TransferListener& listener) {
  if (spec.fidelity == Fidelity::kContention) {
    return std::make_unique<ContentionNetwork>(spec, topo, sim, first_entity, listener);
  }
  return std::make_unique<AnalyticalNetwork>(topo, sim, first_entity, listener);
}

}  // namespace podsim::network
