#pragma once

#include "network/network_model.hpp"

namespace podsim::network {

/// α-β model without contention: a transfer's last byte leaves its source bytes / (slowest
/// link on the route) after it starts, and arrives the sum of the route's latencies later,
/// whatever else is in flight.
class AnalyticalNetwork final : public NetworkModel, private core::EventHandler {
 public:
  AnalyticalNetwork(const topology::Topology& topo, core::Simulator& sim, core::EntityId first_entity,
                    TransferListener& listener, const LocalVertices& local);

  using NetworkModel::send;
  void send(core::Simulator& sim, VertexId src, VertexId dst, std::uint64_t bytes, std::uint32_t tag,
            SimTime delay_ps) override;
  const std::vector<LinkUsage>& link_usage() const override { return usage_; }

 private:
  void handle(core::Simulator& sim, const core::Event& event) override;

  const topology::Topology& topo_;
  core::EntityId first_entity_;
  TransferListener& listener_;
  std::vector<LinkUsage> usage_;
};

}  // namespace podsim::network
