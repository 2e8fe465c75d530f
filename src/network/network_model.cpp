#include "network/network_model.hpp"

#include <stdexcept>

#include "network/analytical_network.hpp"
#include "network/contention_network.hpp"
#include "network/flow_network.hpp"

namespace podsim::network {

void bind_network_entities(const topology::Topology& topo, core::Simulator& sim,
                           core::EntityId first_entity, core::EventHandler& handler,
                           const LocalVertices& local) {
  auto is_local = [&](topology::VertexId v) { return local.empty() || local[v] != 0; };
  for (topology::VertexId v = 0; v < topo.vertices(); ++v) {
    if (is_local(v)) {
      sim.bind(first_entity + v, handler);
    } else {
      sim.mark_remote(first_entity + v);
    }
  }
  const core::EntityId link0 = first_entity + topo.vertices();
  for (std::size_t l = 0; l < topo.links().size(); ++l) {
    const auto id = link0 + static_cast<core::EntityId>(l);
    if (is_local(topo.links()[l].src)) {
      sim.bind(id, handler);
    } else {
      sim.mark_remote(id);
    }
  }
}

std::unique_ptr<NetworkModel> make_network(const NetworkSpec& spec,
                                           const topology::Topology& topo,
                                           core::Simulator& sim, core::EntityId first_entity,
                                           TransferListener& listener, const LocalVertices& local) {
  if (spec.fidelity == Fidelity::kContention && spec.contention == ContentionModel::kFlow) {
    if (!local.empty()) throw std::logic_error("the flow-level network model cannot be partitioned");
    return std::make_unique<FlowNetwork>(topo, sim, first_entity, listener);
  }
  if (spec.fidelity == Fidelity::kContention) {
    return std::make_unique<ContentionNetwork>(spec, topo, sim, first_entity, listener, local);
  }
  return std::make_unique<AnalyticalNetwork>(topo, sim, first_entity, listener, local);
}

}  // namespace podsim::network
