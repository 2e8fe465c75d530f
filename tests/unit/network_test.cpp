#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <vector>

#include "core/simulator.hpp"
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

/// Sends transfers and records when each arrived.
struct Harness final : TransferListener {
  Harness(const topology::Topology& topo, Fidelity fidelity)
      : sim(sync), net(make_network(NetworkSpec{fidelity, 64 * 1024, 16}, topo, sim, 0, *this)) {}
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
  for (Fidelity f : {Fidelity::kAnalytical, Fidelity::kContention}) {
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
  for (Fidelity f : {Fidelity::kAnalytical, Fidelity::kContention}) {
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
  {
    Harness h(topo, Fidelity::kContention);
    // Both leave chip 0 on link 0->1: they alternate chunks, so both finish after about
    // twice the serialization time.
    h.net->send(h.sim, 0, 1, 100'000'000, 1);
    h.net->send(h.sim, 0, 2, 100'000'000, 2);
    h.sim.run();
    const double ratio1 = static_cast<double>(h.done.at(1)) / static_cast<double>(alone);
    const double ratio2 = static_cast<double>(h.done.at(2)) / static_cast<double>(alone);
    EXPECT_NEAR(ratio1, 2.0, 0.1);
    EXPECT_NEAR(ratio2, 2.0, 0.1);
  }
  {
    Harness h(topo, Fidelity::kAnalytical);
    h.net->send(h.sim, 0, 1, 100'000'000, 1);
    h.net->send(h.sim, 0, 2, 100'000'000, 2);
    h.sim.run();
    EXPECT_EQ(h.done.at(1), alone);
  }
}

TEST(Network, OppositeDirectionsDoNotContend) {
  const auto topo = line(2);
  Harness h(topo, Fidelity::kContention);
  h.net->send(h.sim, 0, 1, 50'000'000, 1);
  h.net->send(h.sim, 1, 0, 50'000'000, 2);
  h.sim.run();
  EXPECT_EQ(h.done.at(1), kAlpha + transfer_time_ps(50e6, kB));
  EXPECT_EQ(h.done.at(2), h.done.at(1));
}

TEST(Network, ASlowLinkDownstreamIsTheBottleneck) {
  // GPU -> fabric at 25 GB/s, fabric -> GPU at 25 GB/s; inside a node 300 GB/s.
  const topology::Topology topo(topology::TopologySpec{
      "gpu", topology::SwitchSpec{2, 2, {300e9, 1'000'000}, {25e9, 3'000'000}}});
  for (Fidelity f : {Fidelity::kAnalytical, Fidelity::kContention}) {
    Harness h(topo, f);
    h.net->send(h.sim, 0, 2, 40'000'000, 1);  // across nodes
    h.net->send(h.sim, 0, 1, 40'000'000, 2);  // inside the node
    h.sim.run();
    // Within a picosecond of rounding per chunk (16 chunks).
    EXPECT_LE(std::llabs(h.done.at(1) - (2 * 3'000'000 + transfer_time_ps(40e6, 25e9))), 16);
    EXPECT_LE(std::llabs(h.done.at(2) - (2 * 1'000'000 + transfer_time_ps(40e6, 300e9))), 16);
  }
}

}  // namespace
}  // namespace podsim::network
