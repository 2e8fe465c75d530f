#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <vector>

#include "core/simulator.hpp"
#include "network/link_sharing.hpp"
#include "network/network_model.hpp"
#include "topology/topology.hpp"

namespace podsim::network {
namespace {

constexpr double kB = 50e9;
constexpr SimTime kAlpha = 2'000'000;  // 2 us

topology::Topology line(int n) {
  return topology::Topology(
      topology::TopologySpec{"line", topology::GridSpec{{n}, {false}, false, {kB, kAlpha}}});
}

/// A network model as a test asks for it: analytical, or contention-aware as chunks or flows.
struct Model {
  Fidelity fidelity = Fidelity::kAnalytical;
  ContentionModel contention = ContentionModel::kChunk;
};
constexpr Model kAnalytical{Fidelity::kAnalytical, ContentionModel::kChunk};
constexpr Model kChunks{Fidelity::kContention, ContentionModel::kChunk};
constexpr Model kFlows{Fidelity::kContention, ContentionModel::kFlow};
constexpr Model kEveryModel[] = {kAnalytical, kChunks, kFlows};
constexpr Model kContended[] = {kChunks, kFlows};

NetworkSpec spec_of(Model m) {
  NetworkSpec spec;
  spec.fidelity = m.fidelity;
  spec.contention = m.contention;
  return spec;
}

/// Sends transfers and records when each arrived.
struct Harness final : TransferListener {
  Harness(const topology::Topology& topo, Model model)
      : sim(sync), net(make_network(spec_of(model), topo, sim, 0, *this)) {}
  void transfer_departed(core::Simulator& s, std::uint32_t tag) override { departed[tag] = s.now(); }
  void transfer_done(core::Simulator& s, std::uint32_t tag) override { done[tag] = s.now(); }
  core::SequentialSynchronizer sync;
  core::Simulator sim;
  std::unique_ptr<NetworkModel> net;
  std::map<std::uint64_t, SimTime> done;
  std::map<std::uint64_t, SimTime> departed;
};

TEST(Network, OneTransferTakesLatencyPlusBytesOverBandwidthOnBothModels) {
  const auto topo = line(5);
  for (const Model f : kEveryModel) {
    Harness h(topo, f);
    // 4 hops, 10 MB: 4·α + 10e6/B. The contention model pipelines chunks cut-through, so
    // hops add latency only, as on the analytical model.
    h.net->send(h.sim, 0, 4, 10'000'000, 7);
    h.sim.run();
    EXPECT_EQ(h.done.at(7), 4 * kAlpha + transfer_time_ps(10e6, kB));
    // The last byte leaves the source after the serialization alone (and before any latency);
    // on the contention model, through the first link.
    EXPECT_LE(std::llabs(h.departed.at(7) - transfer_time_ps(10e6, kB)), 16);
    const auto& usage = h.net->link_usage();
    double carried = 0;
    for (const auto& u : usage) carried += u.bytes;
    EXPECT_DOUBLE_EQ(carried, 4 * 10e6);  // each of the 4 links carried the message once
  }
}

TEST(Network, ZeroBytesPayLatencyAndSelfSendsAreImmediate) {
  const auto topo = line(3);
  for (const Model f : kEveryModel) {
    Harness h(topo, f);
    h.net->send(h.sim, 0, 2, 0, 1);
    h.net->send(h.sim, 1, 1, 4096, 2);
    h.sim.run();
    EXPECT_EQ(h.done.at(1), 2 * kAlpha);
    EXPECT_EQ(h.done.at(2), 0);
  }
}

TEST(Network, TransfersSharingALinkShareItsBandwidthOnlyOnTheContentionModel) {
  const auto topo = line(3);
  const double bytes = 100e6;
  const SimTime alone = kAlpha + transfer_time_ps(bytes, kB);
  for (const Model m : kContended) {
    Harness h(topo, m);
    // Both leave chip 0 on link 0->1: they alternate chunks (or share it as fluids), so both
    // finish after about twice the serialization time.
    h.net->send(h.sim, 0, 1, 100'000'000, 1);
    h.net->send(h.sim, 0, 2, 100'000'000, 2);
    h.sim.run();
    const double ratio1 = static_cast<double>(h.done.at(1)) / static_cast<double>(alone);
    const double ratio2 = static_cast<double>(h.done.at(2)) / static_cast<double>(alone);
    EXPECT_NEAR(ratio1, 2.0, 0.1);
    EXPECT_NEAR(ratio2, 2.0, 0.1);
  }
  {
    Harness h(topo, kAnalytical);
    h.net->send(h.sim, 0, 1, 100'000'000, 1);
    h.net->send(h.sim, 0, 2, 100'000'000, 2);
    h.sim.run();
    EXPECT_EQ(h.done.at(1), alone);
  }
}

TEST(Network, OppositeDirectionsDoNotContend) {
  const auto topo = line(2);
  for (const Model m : kContended) {
    Harness h(topo, m);
    h.net->send(h.sim, 0, 1, 50'000'000, 1);
    h.net->send(h.sim, 1, 0, 50'000'000, 2);
    h.sim.run();
    EXPECT_EQ(h.done.at(1), kAlpha + transfer_time_ps(50e6, kB));
    EXPECT_EQ(h.done.at(2), h.done.at(1));
  }
}

TEST(Network, ASlowLinkDownstreamIsTheBottleneck) {
  // GPU -> fabric at 25 GB/s, fabric -> GPU at 25 GB/s; inside a node 300 GB/s.
  const topology::Topology topo(topology::TopologySpec{
      "gpu", topology::SwitchSpec{2, 2, {300e9, 1'000'000}, {25e9, 3'000'000}}});
  for (const Model f : kEveryModel) {
    Harness h(topo, f);
    h.net->send(h.sim, 0, 2, 40'000'000, 1);  // across nodes
    h.net->send(h.sim, 0, 1, 40'000'000, 2);  // inside the node
    h.sim.run();
    // Within a picosecond of rounding per chunk (16 chunks).
    EXPECT_LE(std::llabs(h.done.at(1) - (2 * 3'000'000 + transfer_time_ps(40e6, 25e9))), 16);
    EXPECT_LE(std::llabs(h.done.at(2) - (2 * 1'000'000 + transfer_time_ps(40e6, 300e9))), 16);
  }
}

TEST(Network, ADelayedSendStartsLaterAndKeepsTheLinkFreeMeanwhile) {
  const auto topo = line(2);
  const SimTime delay = 5'000'000;
  for (const Model f : kEveryModel) {
    Harness h(topo, f);
    h.net->send(h.sim, 0, 1, 10'000'000, 1, delay);
    h.sim.run();
    // delay + α + S/B: the delay is software time at the source, before the first byte.
    EXPECT_LE(std::llabs(h.done.at(1) - (delay + kAlpha + transfer_time_ps(10e6, kB))), 16);
    EXPECT_LE(std::llabs(h.departed.at(1) - (delay + transfer_time_ps(10e6, kB))), 16);
    // The link was busy only for the serialization.
    EXPECT_LE(std::llabs(h.net->link_usage()[0].busy_ps - transfer_time_ps(10e6, kB)), 16);
  }
  for (const Model m : kContended) {
    // On the contention models another transfer uses the link during the delay.
    Harness h(topo, m);
    h.net->send(h.sim, 0, 1, 10'000'000, 1, transfer_time_ps(10e6, kB));
    h.net->send(h.sim, 0, 1, 10'000'000, 2);
    h.sim.run();
    EXPECT_LE(std::llabs(h.done.at(2) - (kAlpha + transfer_time_ps(10e6, kB))), 16);
    EXPECT_LE(std::llabs(h.done.at(1) - (kAlpha + 2 * transfer_time_ps(10e6, kB))), 16);
  }
}

topology::Topology cluster(int nodes, int per_node, topology::FabricSpec fabric) {
  return topology::Topology(topology::TopologySpec{
      "cluster", topology::SwitchSpec{nodes, per_node, {300e9, 500'000}, {50e9, 1'000'000}, fabric}});
}

TEST(Network, ChipsSendToTheirSwitchesAndSwitchesToChips) {
  // In-network reduction (NVLS, SHARP) sends to and from a switch: one link each way.
  const auto topo = cluster(2, 4, {});
  for (const Model f : kEveryModel) {
    Harness h(topo, f);
    h.net->send(h.sim, 1, topo.node_switch(1), 30'000'000, 1);
    h.net->send(h.sim, topo.node_switch(5), 5, 30'000'000, 2);
    h.net->send(h.sim, 2, topo.fabric_switch(2), 5'000'000, 3);
    h.net->send(h.sim, topo.fabric_switch(6), 6, 5'000'000, 4);
    h.sim.run();
    EXPECT_LE(std::llabs(h.done.at(1) - (500'000 + transfer_time_ps(30e6, 300e9))), 16);
    EXPECT_LE(std::llabs(h.done.at(2) - (500'000 + transfer_time_ps(30e6, 300e9))), 16);
    EXPECT_LE(std::llabs(h.done.at(3) - (1'000'000 + transfer_time_ps(5e6, 50e9))), 16);
    EXPECT_LE(std::llabs(h.done.at(4) - (1'000'000 + transfer_time_ps(5e6, 50e9))), 16);
  }
}

TEST(Network, RailOptimizedFabricKeepsSameIndexTrafficOnItsRail) {
  // 4 nodes of 4 GPUs, one leaf group: rail switch r joins GPU r of every node; rails meet
  // at the spine.
  const auto topo = cluster(4, 4, {4, true, 1});
  EXPECT_EQ(topo.route(1, 13).size(), 2u);  // GPU 1 of node 0 -> GPU 1 of node 3: its rail
  EXPECT_EQ(topo.route(1, 14).size(), 4u);  // GPU 1 -> GPU 2 of node 3: rail, spine, rail
  EXPECT_EQ(topo.hops(1, 14), 4);
  EXPECT_EQ(topo.route(1, 2).size(), 2u);   // inside the node: NVSwitch
  EXPECT_NE(topo.fabric_switch(1), topo.fabric_switch(2));
  EXPECT_EQ(topo.fabric_switch(1), topo.fabric_switch(13));
}

TEST(Network, AnOversubscribedSpineIsSharedOnlyOnTheContentionModel) {
  // 4 nodes of 2 GPUs, 2 nodes per leaf, 2:1: a leaf's NICs push 4 × 50 GB/s, its spine
  // trunk carries 100 GB/s. Two 50 GB/s flows from leaf 0 to leaf 1 fill the trunk; four
  // would need twice its bandwidth.
  const auto topo = cluster(4, 2, {2, false, 2});
  EXPECT_EQ(topo.route(0, 4).size(), 4u);
  const double bytes = 50e6;
  const SimTime alone = 4 * 1'000'000 + transfer_time_ps(bytes, 50e9);
  for (const Model m : kContended) {
    Harness h(topo, m);
    h.net->send(h.sim, 0, 4, 50'000'000, 1);
    h.net->send(h.sim, 1, 5, 50'000'000, 2);
    h.sim.run();
    EXPECT_NEAR(static_cast<double>(h.done.at(1)) / static_cast<double>(alone), 1.0, 0.05);
  }
  for (const Model m : kContended) {
    Harness h(topo, m);
    for (std::uint32_t g = 0; g < 4; ++g) h.net->send(h.sim, g, 4 + g, 50'000'000, g);
    h.sim.run();
    // 200 MB over the 100 GB/s trunk: 2 ms, twice the NIC time.
    for (std::uint32_t g = 0; g < 4; ++g) {
      EXPECT_NEAR(static_cast<double>(h.done.at(g)) / static_cast<double>(alone), 2.0, 0.1) << g;
    }
  }
  {
    Harness h(topo, kAnalytical);
    for (std::uint32_t g = 0; g < 4; ++g) h.net->send(h.sim, g, 4 + g, 50'000'000, g);
    h.sim.run();
    EXPECT_EQ(h.done.at(3), alone);
    // ...but it accounts the trunk's load truthfully: 200 MB at 100 GB/s, busy 2 ms.
    SimTime trunk_busy = 0;
    for (const auto& l : topo.links()) {
      if (l.src >= topo.chips() + 4 && l.dst >= topo.chips() + 4) {
        trunk_busy = std::max(trunk_busy, h.net->link_usage()[&l - topo.links().data()].busy_ps);
      }
    }
    EXPECT_NEAR(to_seconds(trunk_busy), 200e6 / 100e9, 1e-9);
  }
}

}  // namespace
TEST(LinkSharing, AloneAtFullSpeedTogetherSharedFairlyNeverAboveCapacity) {
  network::LinkSharing sharing(3);
  // Alone: rate 1 whatever its fractions (its busiest resource has f = 1).
  const auto a = sharing.add({{0, 1.0}, {1, 0.5}});
  EXPECT_EQ(sharing.solve(), std::vector<network::LinkSharing::ActivityId>{a});
  EXPECT_DOUBLE_EQ(sharing.rate(a), 1.0);
  // Two that fill resource 0: half each; resource 1 carries 0.5·½ + 0.5·½ = 0.5.
  const auto b = sharing.add({{0, 1.0}, {1, 0.5}});
  EXPECT_EQ(sharing.solve().size(), 2u);
  EXPECT_DOUBLE_EQ(sharing.rate(a), 0.5);
  EXPECT_DOUBLE_EQ(sharing.rate(b), 0.5);
  // A third on resources 1 and 2 only: resource 1 now has 0.5·½ + 0.5·½ = 0.5 used by a, b,
  // so c, alone on 2 and at fraction 1 on 1, gets the 0.5 left (max-min: a and b are limited
  // by resource 0, not 1).
  const auto c = sharing.add({{1, 1.0}, {2, 1.0}});
  sharing.solve();
  EXPECT_DOUBLE_EQ(sharing.rate(a), 0.5);
  EXPECT_DOUBLE_EQ(sharing.rate(c), 0.5);
  // Remove a: b alone on 0 would run at 1 but then needs 0.5 of resource 1, c the other 0.5.
  sharing.remove(a);
  sharing.solve();
  EXPECT_DOUBLE_EQ(sharing.rate(b), 2.0 / 3.0);  // 0.5·x + x ≤ 1 with equal rates x: 2/3 each
  EXPECT_DOUBLE_EQ(sharing.rate(c), 2.0 / 3.0);
  EXPECT_LE(0.5 * sharing.rate(b) + sharing.rate(c), 1.0 + 1e-12);
}

TEST(LinkSharing, UnrelatedActivitiesAreNotRecomputed) {
  network::LinkSharing sharing(2);
  const auto a = sharing.add({{0, 1.0}});
  sharing.solve();
  const auto b = sharing.add({{1, 1.0}});
  // Only b is new; a, on another resource, keeps its rate and is not reported.
  EXPECT_EQ(sharing.solve(), std::vector<network::LinkSharing::ActivityId>{b});
  const auto none = sharing.add({});
  EXPECT_EQ(sharing.solve(), std::vector<network::LinkSharing::ActivityId>{none});
  EXPECT_DOUBLE_EQ(sharing.rate(none), 1.0);
  sharing.remove(a);
  EXPECT_TRUE(sharing.solve().empty());  // nobody else was on resource 0
  EXPECT_EQ(sharing.active(), 2u);
}

TEST(LinkSharing, RandomMixesNeverOverloadAResourceAndSomeResourceBindsEachActivity) {
  // Max-min fairness: every activity below rate 1 crosses a full resource on which no other
  // activity runs faster (the bottleneck condition).
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    network::LinkSharing sharing(6);
    std::vector<std::vector<network::ResourceUse>> uses;
    std::vector<network::LinkSharing::ActivityId> ids;
    for (int k = 0; k < 8; ++k) {
      std::vector<network::ResourceUse> u;
      for (std::uint32_t r = 0; r < 6; ++r) {
        if (rng() % 3 == 0) u.push_back({r, 0.1 + 0.9 * static_cast<double>(rng() % 1000) / 1000.0});
      }
      uses.push_back(u);
      ids.push_back(sharing.add(u));
      if (rng() % 4 == 0 && ids.size() > 1) {
        sharing.remove(ids.front());
        ids.erase(ids.begin());
        uses.erase(uses.begin());
      }
      sharing.solve();
    }
    std::vector<double> load(6, 0);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      for (const auto& u : uses[i]) load[u.resource] += std::min(1.0, u.fraction) * sharing.rate(ids[i]);
    }
    for (double l : load) EXPECT_LE(l, 1.0 + 1e-9);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const double r = sharing.rate(ids[i]);
      if (r >= 1.0 - 1e-12) continue;
      bool bound = false;
      for (const auto& u : uses[i]) {
        if (load[u.resource] < 1.0 - 1e-9) continue;
        bool fastest = true;
        for (std::size_t j = 0; j < ids.size(); ++j) {
          for (const auto& v : uses[j]) fastest = fastest && !(v.resource == u.resource && sharing.rate(ids[j]) > r + 1e-9);
        }
        bound = bound || fastest;
      }
      EXPECT_TRUE(bound) << "trial " << trial << " activity " << i << " rate " << r;
    }
  }
}

}  // namespace podsim::network
