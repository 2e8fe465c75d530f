#pragma once

#include <cstdint>
#include <vector>

#include "network/link_sharing.hpp"
#include "network/network_model.hpp"

namespace podsim::network {

/// Links with bandwidth and latency, shared by the transfers that cross them as fluids.
///
/// Each transfer is one flow along its route. Alone it moves at its route's slowest link;
/// flows that share links get max-min fair rates (LinkSharing, SimGrid's flow model), which
/// are recomputed only for the flows connected to a start or an end. The last byte leaves
/// its source when the flow has moved all its bytes, and arrives Σ latency later: so an
/// uncontended message takes exactly Σ latency + bytes / bandwidth, like the analytical and
/// the chunk-level model (ContentionNetwork), and no link is ever busier than 100 %.
///
/// It costs a few events per transfer where the chunk-level model costs a few per chunk and
/// hop, at the price of the chunks' store-and-forward detail: a flow occupies every link of
/// its route at once, and a link shares itself fairly instead of first come, first served.
/// Rates are global state, so it is not partitioned over processes: under MPI every process
/// runs it whole, like the analytical model.
class FlowNetwork final : public NetworkModel, private core::EventHandler {
 public:
  FlowNetwork(const topology::Topology& topo, core::Simulator& sim, core::EntityId first_entity,
              TransferListener& listener);

  using NetworkModel::send;
  void send(core::Simulator& sim, VertexId src, VertexId dst, std::uint64_t bytes, std::uint32_t tag,
            SimTime delay_ps) override;
  const std::vector<LinkUsage>& link_usage() const override { return usage_; }

 private:
  /// A transfer in flight; indexed by its LinkSharing activity.
  struct Flow {
    VertexId src = 0;
    VertexId dst = 0;
    std::uint32_t tag = 0;
    SimTime latency_ps = 0;  ///< Σ latency along the route
    double left_ps = 0;      ///< time still needed at full rate (its slowest link's)
    double rate = 0;         ///< current share of its full rate, (0, 1]
    SimTime since = 0;       ///< when left_ps was last brought up to date
    std::uint64_t version = 0;
  };
  /// A transfer waiting for its software delay.
  struct Waiting {
    VertexId dst = 0;
    std::uint32_t tag = 0;
    std::uint64_t bytes = 0;
  };

  void handle(core::Simulator& sim, const core::Event& event) override;
  void start(core::Simulator& sim, VertexId src, VertexId dst, std::uint64_t bytes, std::uint32_t tag);
  void finish(core::Simulator& sim, LinkSharing::ActivityId id);
  void want_solve(core::Simulator& sim, VertexId at);
  void resolve(core::Simulator& sim);
  /// The last byte of `tag` reaches `dst` at `arrival_ps` (plus the listener's arrival delay).
  void deliver(core::Simulator& sim, VertexId src, VertexId dst, std::uint32_t tag, SimTime arrival_ps);

  const topology::Topology& topo_;
  core::EntityId vertex_entity0_;
  TransferListener& listener_;
  std::vector<LinkUsage> usage_;
  LinkSharing sharing_;
  std::vector<Flow> flows_;
  std::vector<Waiting> waiting_;
  std::vector<std::uint32_t> free_waiting_;
  std::vector<topology::LinkId> route_;  // scratch of start()
  std::vector<ResourceUse> uses_;        // scratch of start()
  std::uint64_t versions_ = 0;
  bool solve_pending_ = false;
};

}  // namespace podsim::network
