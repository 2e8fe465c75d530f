// NCCL's tuning model (NVIDIA/nccl src/graph/tuning.cc, v2.20.5-1) and what podsim
// simulates of its choices. Expected values are derived by hand from tuning.cc next to
// each assertion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "collectives/collective_timing.hpp"
#include "collectives/lowering.hpp"
#include "collectives/nccl_lowering.hpp"
#include "collectives/nccl_tuning.hpp"
#include "collectives/schedule_runner.hpp"
#include "topology/topology.hpp"
#include "util/error.hpp"

namespace podsim::collectives {
namespace {

using nccl::Algo;
using nccl::Proto;

/// One node of 8 A100 (NVLink as NCCL counts it: 12 × 20 GB/s) or H100 (18 × 20.6).
nccl::System a100x8() { return {topology::GpuArch::kAmpere, 8, 1, 240, 21.5, false, false}; }
nccl::System h100x8() { return {topology::GpuArch::kHopper, 8, 1, 370.8, 47, true, false}; }

const nccl::Model::Entry& entry(const nccl::Model& m, int op, Algo a, Proto p) {
  return m.entries[static_cast<std::size_t>(op)][static_cast<std::size_t>(a)][static_cast<std::size_t>(p)];
}

TEST(NcclTuning, GraphsAsNcclsSearchFindsThem) {
  // A100: 40 GB/s channels fit 240/40 = 6 times; ncclTopoDupChannels splits them (bw >= 25,
  // not sm90): 12 channels of 20 GB/s. H100: 6 of 60, split (60 >= 50): 12 of 30.
  const auto a = nccl::graphs_for(a100x8());
  EXPECT_EQ(a[static_cast<std::size_t>(Algo::kRing)].channels, 12);
  EXPECT_DOUBLE_EQ(a[static_cast<std::size_t>(Algo::kRing)].bw_intra_GBps, 20);
  EXPECT_EQ(a[static_cast<std::size_t>(Algo::kNvls)].channels, 0);  // sm80: no NVLS
  const auto h = nccl::graphs_for(h100x8());
  EXPECT_EQ(h[static_cast<std::size_t>(Algo::kRing)].channels, 12);
  EXPECT_DOUBLE_EQ(h[static_cast<std::size_t>(Algo::kRing)].bw_intra_GBps, 30);
  // NVLS: one channel per GPU; 8 × 50 fits 370.8 × 8/7.
  EXPECT_EQ(h[static_cast<std::size_t>(Algo::kNvls)].channels, 8);
  EXPECT_DOUBLE_EQ(h[static_cast<std::size_t>(Algo::kNvls)].bw_intra_GBps, 50);
}

TEST(NcclTuning, LatenciesAndBandwidthsOfTuningCc) {
  const nccl::Model m = nccl::tune(a100x8());
  // All-reduce (op 0), nsteps = 2(8−1) = 14, one node.
  // Ring LL: baseLat 6.6 + 14 × hwLat 0.6 = 15.0 us; busBw min(llMaxBw 87.7, 240/4) = 60,
  // × nRanks/nsteps = 8/14.
  EXPECT_NEAR(entry(m, 0, Algo::kRing, Proto::kLL).latency_us, 15.0, 1e-9);
  EXPECT_NEAR(entry(m, 0, Algo::kRing, Proto::kLL).bandwidth_GBps, 60.0 * 8 / 14, 1e-9);
  // Ring LL128: 14.0 + 14 × 1.9 = 40.6; min(240 × 0.92, 12 × 20) = 220.8, × 8/14.
  EXPECT_NEAR(entry(m, 0, Algo::kRing, Proto::kLL128).latency_us, 40.6, 1e-9);
  EXPECT_NEAR(entry(m, 0, Algo::kRing, Proto::kLL128).bandwidth_GBps, 220.8 * 8 / 14, 1e-9);
  // Ring Simple: 8.4 + 14 × 3.4 = 56; 240 × 8/14.
  EXPECT_NEAR(entry(m, 0, Algo::kRing, Proto::kSimple).latency_us, 56.0, 1e-9);
  EXPECT_NEAR(entry(m, 0, Algo::kRing, Proto::kSimple).bandwidth_GBps, 240.0 * 8 / 14, 1e-9);
  // Tree LL: 6.8 + 2 × (7 × 0.6 + log2(1) × 5) = 15.2; min(240 × .92, 12 × 24) / 3.8, × 0.5.
  EXPECT_NEAR(entry(m, 0, Algo::kTree, Proto::kLL).latency_us, 15.2, 1e-9);
  EXPECT_NEAR(entry(m, 0, Algo::kTree, Proto::kLL).bandwidth_GBps, 220.8 / 3.8 * 0.5, 1e-9);
  // Reduce-scatter (op 1): nsteps 7; ring Simple 8.4 + 7 × 3.4 = 32.2; × 8/7.
  EXPECT_NEAR(entry(m, 1, Algo::kRing, Proto::kSimple).latency_us, 32.2, 1e-9);
  EXPECT_NEAR(entry(m, 1, Algo::kRing, Proto::kSimple).bandwidth_GBps, 240.0 * 8 / 7, 1e-9);
  // NVLS on H100: latency = hwLat NVLink NVLS 23 us; 8 channels × 50 × 5/6.
  const nccl::Model h = nccl::tune(h100x8());
  EXPECT_NEAR(entry(h, 0, Algo::kNvls, Proto::kSimple).latency_us, 23.0, 1e-9);
  EXPECT_NEAR(entry(h, 0, Algo::kNvls, Proto::kSimple).bandwidth_GBps, 400.0 * 5 / 6, 1e-9);
  EXPECT_EQ(entry(h, 0, Algo::kNvls, Proto::kLL).bandwidth_GBps, 0);  // NVLS runs Simple only
  EXPECT_EQ(entry(h, 0, Algo::kNvlsTree, Proto::kSimple).bandwidth_GBps, 0);  // one node
}

TEST(NcclTuning, ChoosesTheSmallestPredictionLikeTopoGetAlgoInfo) {
  const nccl::Model a = nccl::tune(a100x8());
  // 1 MiB: ring LL 15 + 1048576/(1000 × 34.29) = 45.6 us beats LL128's 48.9 and Simple's 63.6.
  auto c = nccl::choose(a, Op::kAllReduce, 1 << 20);
  EXPECT_EQ(c.algo, Algo::kRing);
  EXPECT_EQ(c.proto, Proto::kLL);
  EXPECT_NEAR(c.predicted_us, 15 + 1048576 / (1000 * 60.0 * 8 / 14), 1e-6);
  // LL128 and Simple cross at 15.4 us / (1/126.2 − 1/137.1 GB/s) ≈ 24 MB.
  EXPECT_EQ(nccl::choose(a, Op::kAllReduce, 16 << 20).proto, Proto::kLL128);
  EXPECT_EQ(nccl::choose(a, Op::kAllReduce, 32 << 20).proto, Proto::kSimple);
  const nccl::Model h = nccl::tune(h100x8());
  // 1 KiB: ring LL 15.0 us beats NVLS 23 us; 16 MiB: NVLS 23 + 16.8e6/333e3 = 73 us.
  EXPECT_EQ(nccl::choose(h, Op::kAllReduce, 1024).algo, Algo::kRing);
  EXPECT_EQ(nccl::choose(h, Op::kAllReduce, 16 << 20).algo, Algo::kNvls);
  // NCCL_ALGO=NVLS: NVLS at every size.
  nccl::Allowed nvls_only;
  nvls_only.algos = {false, false, false, false, true, false};
  EXPECT_EQ(nccl::choose(h, Op::kAllReduce, 1024, nvls_only).algo, Algo::kNvls);
  EXPECT_THROW(nccl::choose(a, Op::kAllReduce, 1024, nvls_only), InputError);
  // Tree correction: 1 MiB = 2^14 × 64 B, Simple factor 0.5 at index 14.
  EXPECT_NEAR(nccl::predict_us(a, Op::kAllReduce, Algo::kTree, Proto::kSimple, 1 << 20),
              entry(a, 0, Algo::kTree, Proto::kSimple).latency_us +
                  1048576 / (1000 * entry(a, 0, Algo::kTree, Proto::kSimple).bandwidth_GBps * 0.5),
              1e-6);
}

TEST(NcclTuning, AcrossNodes) {
  // 16 nodes of 8 H100, one 47 GB/s NIC per GPU: ring channels at 45 GB/s (sm90 inter
  // speeds), one per NIC: 8, not split (45 < 50 with more than 4 channels).
  const nccl::System s{topology::GpuArch::kHopper, 128, 16, 370.8, 47, true, false};
  const auto g = nccl::graphs_for(s);
  EXPECT_EQ(g[static_cast<std::size_t>(Algo::kRing)].channels, 8);
  EXPECT_DOUBLE_EQ(g[static_cast<std::size_t>(Algo::kRing)].bw_inter_GBps, 45);
  const nccl::Model m = nccl::tune(s);
  // Ring Simple all-reduce: nsteps 254, nInterSteps 2 × 16 = 32; intra step
  // max(3.4, netOverhead 1 × 3) = 3.4, inter 14: 8.4 + 222 × 3.4 + 32 × 14.
  EXPECT_NEAR(entry(m, 0, Algo::kRing, Proto::kSimple).latency_us, 8.4 + 222 * 3.4 + 32 * 14, 1e-9);
  // Tree LL: 6.8 + 2 × (7 × 0.6 + log2(16) × 5).
  EXPECT_NEAR(entry(m, 0, Algo::kTree, Proto::kLL).latency_us, 6.8 + 2 * (7 * 0.6 + 4 * 5.0), 1e-9);
  // Without CollNet, NVLS is off across nodes and NVLS-tree on: 23 + 2 × 4 × 14.
  EXPECT_EQ(entry(m, 0, Algo::kNvls, Proto::kSimple).bandwidth_GBps, 0);
  EXPECT_NEAR(entry(m, 0, Algo::kNvlsTree, Proto::kSimple).latency_us, 23 + 2 * 4 * 14.0, 1e-9);
  // Small messages go to the tree (log latency), large ones to the ring or NVLS-tree.
  EXPECT_EQ(nccl::choose(m, Op::kAllReduce, 4096).algo, Algo::kTree);
}

TEST(NcclTuning, CtasHoldSmsAsGetChannelThreadInfoSetsThem) {
  // Ring and tree: twice the graph's channels (ncclTopoPostset). A100 node: 2 × 12 = 24; across
  // 16 H100 nodes 2 × 8 = 16, "on DGX with 8 NICs … it would use 16 SMs" (NVIDIA/nccl #689).
  const nccl::Model a = nccl::tune(a100x8());
  const std::uint64_t big = 1ull << 30;
  EXPECT_EQ(nccl::ctas(a, {Algo::kRing, Proto::kSimple, 0}, big), 24);
  const nccl::Model across = nccl::tune({topology::GpuArch::kHopper, 128, 16, 370.8, 47, true, false});
  EXPECT_EQ(nccl::ctas(across, {Algo::kRing, Proto::kSimple, 0}, big), 16);
  // Fewer while bytes < channels × threads × threshold: Simple 512 threads × 64 B, so 64 KiB
  // keep 2 channels and 1 KiB one; LL128 640 × 8 B: 40 KiB keep 8.
  EXPECT_EQ(nccl::ctas(a, {Algo::kRing, Proto::kSimple, 0}, 65536), 2);
  EXPECT_EQ(nccl::ctas(a, {Algo::kRing, Proto::kSimple, 0}, 1024), 1);
  EXPECT_EQ(nccl::ctas(a, {Algo::kRing, Proto::kLL128, 0}, 40960), 8);
  // LL's threshold is 8 B × ranks on a ring: 8 ranks, 512 threads: 32 KiB per channel.
  EXPECT_EQ(nccl::ctas(a, {Algo::kRing, Proto::kLL, 0}, 3 * 32768), 3);
  // NVLS: NCCL_NVLS_NCHANNELS, 16, at any size.
  const nccl::Model h = nccl::tune(h100x8());
  EXPECT_EQ(nccl::ctas(h, {Algo::kNvls, Proto::kSimple, 0}, 1024), 16);
  // Send/recv across nodes: NCCL_NCHANNELS_PER_NET_PEER's 2; inside a node the ring's channels.
  EXPECT_EQ(nccl::p2p_ctas({topology::GpuArch::kAmpere, 2, 2, 240, 21.5, false, false}), 2);
  EXPECT_EQ(nccl::p2p_ctas({topology::GpuArch::kAmpere, 2, 1, 240, 21.5, false, false}), 24);
}

TEST(NcclTuning, SimpleRingLoopsFollowNcclsChunking) {
  // all_reduce.h runRing: loopSize = nChannels × nRanks × chunkSize, chunkSize 2 MiB (4 MiB
  // buffer / NCCL_STEPS 8 × ALLREDUCE_CHUNKSTEPS 4). 24 channels × 8 ranks: 384 MiB a loop.
  constexpr std::uint64_t kMiB = 1ull << 20;
  EXPECT_EQ(nccl::simple_ring_loops(24, 8, 0), 1);
  EXPECT_EQ(nccl::simple_ring_loops(24, 8, 64 * kMiB), 1);
  EXPECT_EQ(nccl::simple_ring_loops(24, 8, 384 * kMiB), 1);
  EXPECT_EQ(nccl::simple_ring_loops(24, 8, 384 * kMiB + 1), 2);
  EXPECT_EQ(nccl::simple_ring_loops(24, 8, 1024 * kMiB), 3);    // 1 GiB: ⌈1024/384⌉
  EXPECT_EQ(nccl::simple_ring_loops(24, 8, 8192 * kMiB), 22);   // 8 GiB: ⌈8192/384⌉
  EXPECT_EQ(nccl::simple_ring_loops(16, 128, 8192 * kMiB), 2);  // 16 × 128 × 2 MiB = 4 GiB
  EXPECT_EQ(nccl::kSimpleSlicesPerStep, 2);                     // ALLREDUCE_SLICESTEPS of CHUNKSTEPS
}

// ---- What podsim simulates of NCCL's choices ----------------------------------------

constexpr double kNvlink = 370.8e9;
constexpr SimTime kNvlinkLatency = 300'000;  // the wire part of NCCL's LL step, per link

topology::Topology cluster(int nodes, topology::NcclSpec nccl, topology::FabricSpec fabric = {}) {
  topology::TopologySpec spec{"c", topology::SwitchSpec{nodes, 8, {kNvlink, kNvlinkLatency}, {47e9, 1'350'000}, fabric}};
  spec.collectives.nccl = nccl;
  return topology::Topology(spec);
}

const topology::NcclSpec kHopper{topology::GpuArch::kHopper, true, false, 5'000'000};

struct Simulated {
  double time_s;
  ScheduleResult result;
  Resolved resolved;
};

Simulated simulate(const topology::Topology& topo, const CollectiveSpec& spec, std::vector<int> axes,
             network::Fidelity fidelity) {
  const auto groups = make_groups(topo, std::move(axes));
  Schedule schedule;
  lower_collective(topo, spec, groups, 0, schedule);
  network::NetworkSpec net;
  net.fidelity = fidelity;
  Simulated r{0, run_schedule(topo, net, schedule), resolve_collective(topo, spec, groups.front())};
  r.time_s = to_seconds(r.result.finish_ps[0]);
  return r;
}

const std::vector<network::Fidelity> kBoth{network::Fidelity::kAnalytical, network::Fidelity::kContention};

TEST(NcclSimulation, AnUncontendedRingTakesNcclsPredictionPlusTheLaunchAndSimplesHandovers) {
  // Invariant of the NCCL emitter: a ring of 2(n−1) steps of S/n takes
  // launch + baseLat + Σ (step latency + (S/n) / rate), i.e. NCCL's own prediction plus
  // the launch, when the protocol's rate is below the link's; Simple adds, per step, NCCL's
  // NVLink hwLat (3.4 µs) for each of its 2 slices of every loop.
  const auto topo = cluster(1, kHopper);
  const nccl::Model m = nccl::tune(*detail::nccl_system(topo, make_groups(topo, {0}).front()));
  for (Protocol p : {Protocol::kLL, Protocol::kLL128, Protocol::kSimple}) {
    for (std::uint64_t bytes : {1ull << 10, 1ull << 20, 1ull << 26, 1ull << 30}) {
      double handovers = 0;
      if (p == Protocol::kSimple) {
        const int loops = nccl::simple_ring_loops(nccl::ctas(m, {Algo::kRing, Proto::kSimple, 0}, bytes), 8, bytes);
        EXPECT_EQ(loops, bytes == 1ull << 30 ? 3 : 1);
        handovers = 14 * 2 * loops * 3.4e-6;
      }
      for (auto f : kBoth) {
        const Simulated r = simulate(topo, {Op::kAllReduce, Algorithm::kRing, bytes, p}, {0}, f);
        EXPECT_EQ(r.resolved.algorithm, Algorithm::kRing);
        EXPECT_EQ(r.resolved.protocol, p);
        EXPECT_NEAR(r.time_s, r.resolved.nccl_predicted_s + 5e-6 + handovers, 0.01 * r.time_s)
            << protocol_name(p) << " " << bytes;
      }
    }
  }
}

TEST(NcclSimulation, AmpereLl128RingsMoveAtTheMeasuredRateWhileNcclChoosesByItsModel) {
  // NCCL's model gives an 8×A100 LL128 ring min(12 × 20 × 0.92, 12 × 20) = 220.8 GB/s and
  // chooses by it: LL128 at 16 MiB (173.6 µs against Simple's 178). The kernel moves 11.5 GB/s
  // per ring channel (a measured nccl-tests curve, nccl_tuning.cpp): 138 GB/s of bus
  // bandwidth, which is what the transfers get; Simple and Hopper keep NCCL's figures.
  const nccl::Model a = nccl::tune(a100x8());
  EXPECT_NEAR(entry(a, 0, Algo::kRing, Proto::kLL128).bandwidth_GBps, 220.8 * 8 / 14, 1e-9);
  EXPECT_NEAR(entry(a, 0, Algo::kRing, Proto::kLL128).bus_GBps, 12 * 11.5, 1e-9);
  EXPECT_NEAR(entry(a, 0, Algo::kRing, Proto::kSimple).bus_GBps, 240, 1e-9);
  const nccl::Choice c = nccl::choose(a, Op::kAllReduce, 16ull << 20, {});
  EXPECT_EQ(c.algo, Algo::kRing);
  EXPECT_EQ(c.proto, Proto::kLL128);
  const nccl::Model h = nccl::tune(h100x8());
  EXPECT_DOUBLE_EQ(entry(h, 0, Algo::kRing, Proto::kLL128).bus_GBps * 8 / 14,
            entry(h, 0, Algo::kRing, Proto::kLL128).bandwidth_GBps);
  // Simulated: NCCL's latency, the launch and 2(n−1)/n·S at the measured rate.
  const topology::NcclSpec ampere{topology::GpuArch::kAmpere, false, false, 5'000'000};
  topology::TopologySpec spec{"a", topology::SwitchSpec{1, 8, {240e9, kNvlinkLatency}, {25e9, 1'350'000}, {}}};
  spec.collectives.nccl = ampere;
  const topology::Topology topo(spec);
  const double bytes = 16 << 20;
  for (auto f : kBoth) {
    const Simulated r = simulate(topo, {Op::kAllReduce, Algorithm::kRing, 16 << 20, Protocol::kLL128}, {0}, f);
    const double latency = r.resolved.nccl_predicted_s - bytes / (220.8e9 * 8 / 14);
    EXPECT_NEAR(r.time_s, 5e-6 + latency + 2.0 * 7 / 8 * bytes / (12 * 11.5e9), 0.01 * r.time_s);
    EXPECT_GT(r.time_s, 1.3 * r.resolved.nccl_predicted_s);
  }
}

TEST(NcclSimulation, ProtocolsPutTheirFlagsOnTheWire) {
  // Ring all-reduce: each GPU sends 2(n−1)/n × S of payload; LL doubles it on the wire
  // (4 B flag per 4 B of data), LL128 adds 8 B per 120 B. Busy time is what the link carried.
  const auto topo = cluster(1, kHopper);
  const double s = 8 << 20;
  for (auto [p, wire] : {std::pair{Protocol::kLL, 2.0}, {Protocol::kLL128, 128.0 / 120.0}, {Protocol::kSimple, 1.0}}) {
    const Simulated r = simulate(topo, {Op::kAllReduce, Algorithm::kRing, 8 << 20, p}, {0}, network::Fidelity::kAnalytical);
    const auto& up = r.result.links[topo.route(0, 1)[0]];  // GPU 0 -> its NVSwitch
    EXPECT_NEAR(up.bytes, 2.0 * 7 / 8 * s * wire, 16 * 14.0) << protocol_name(p);
    EXPECT_NEAR(to_seconds(up.busy_ps), up.bytes / kNvlink, 1e-9);
    EXPECT_LE(up.busy_ps, r.result.finish_ps[0]);
  }
}

TEST(NcclSimulation, NvlsMovesSTimesNPlusOneOverNEachWayAndBeatsTheRing) {
  // NVLS: S up for the switch to reduce, S/n reduced back, S/n stored for multicast, S
  // multicast down: S(n+1)/n each way, with NCCL's 6/5 NVLS packet overhead on the wire.
  const auto topo = cluster(1, kHopper);
  const double s = 256 << 20;
  for (auto f : kBoth) {
    const Simulated r = simulate(topo, {Op::kAllReduce, Algorithm::kNvls, 256 << 20}, {0}, f);
    EXPECT_EQ(r.resolved.protocol, Protocol::kSimple);
    const auto& up = r.result.links[topo.route(3, topo.node_switch(3))[0]];
    const auto& down = r.result.links[topo.route(topo.node_switch(3), 3)[0]];
    EXPECT_NEAR(up.bytes, s * 9 / 8 * 1.2, 1e4);
    EXPECT_NEAR(down.bytes, s * 9 / 8 * 1.2, 1e4);
    EXPECT_LE(up.busy_ps, r.result.finish_ps[0]);
    EXPECT_LE(down.busy_ps, r.result.finish_ps[0]);
    // Bandwidth bound: algbw → B / (9/8 × 6/5) = 274.7 GB/s, busbw → 481 GB/s; the
    // pipeline's fill costs a few per cent at this size.
    const double busbw = 2 * 7.0 / 8 * s / r.time_s;
    EXPECT_GT(busbw, 440e9);
    EXPECT_LT(busbw, 481e9);
    const Simulated ring = simulate(topo, {Op::kAllReduce, Algorithm::kRing, 256 << 20}, {0}, f);
    EXPECT_LT(r.time_s, ring.time_s);
  }
}

TEST(NcclSimulation, EveryAlgorithmKeepsEveryLinkBusyAtMostItsDuration) {
  // The interface the shared-link solver relies on: per collective, no link is busy
  // longer than the collective takes alone, on both network models.
  topology::NcclSpec all = kHopper;
  all.collnet = true;
  const auto topo = cluster(4, all);
  for (Algorithm a : {Algorithm::kRing, Algorithm::kTree, Algorithm::kNvlsTree, Algorithm::kCollNet, Algorithm::kAuto}) {
    for (std::uint64_t bytes : {1ull << 12, 1ull << 22, 1ull << 28}) {
      for (auto f : kBoth) {
        const Simulated r = simulate(topo, {Op::kAllReduce, a, bytes}, {0, 1}, f);
        for (const auto& l : r.result.links) {
          EXPECT_LE(l.busy_ps, r.result.finish_ps[0]) << algorithm_name(a) << " " << bytes;
        }
      }
    }
  }
  // Reduce-scatter, all-gather and broadcast inside a node.
  for (Op op : {Op::kReduceScatter, Op::kAllGather, Op::kBroadcast}) {
    for (auto f : kBoth) {
      const Simulated r = simulate(topo, {op, Algorithm::kAuto, 64 << 20}, {0}, f);
      for (const auto& l : r.result.links) EXPECT_LE(l.busy_ps, r.result.finish_ps[0]) << op_name(op);
    }
  }
}

TEST(NcclSimulation, ARankOfARingAcrossNodesSendsNoFasterThanNcclsPerRankRate) {
  // NCCL's bus rate is a rank's total over its channels. Across nodes a rank's channels leave
  // on two links (NVLink, its NIC); each link gets its channels' share, so the rank as a whole
  // keeps to the rate: an LL ring (capped far below both links by llMaxBw) takes at least its
  // bytes at NCCL's rate, and about NCCL's prediction. Giving each link the whole rate let 4
  // nodes of 8 run LL 23 % faster than NCCL's cap.
  const auto topo = cluster(4, kHopper);
  const auto groups = make_groups(topo, {0, 1});
  const nccl::Model m = nccl::tune(*detail::nccl_system(topo, groups.front()));
  const double bus = entry(m, 2, Algo::kRing, Proto::kLL).bus_GBps * 1e9;  // all-gather
  ASSERT_GT(bus, 0);
  const double bytes = 256 << 20;
  for (auto f : kBoth) {
    const Simulated r = simulate(topo, {Op::kAllGather, Algorithm::kRing, 256 << 20, Protocol::kLL}, {0, 1}, f);
    EXPECT_GE(r.time_s, bytes * 31 / 32 / bus);
    EXPECT_NEAR(r.time_s, r.resolved.nccl_predicted_s + 5e-6, 0.03 * r.time_s);
  }
}

TEST(NcclSimulation, ARingOfManyNodesIsSimulatedAsOnePairAndReportedWhole) {
  // 6 nodes of 8: the ring repeats every two nodes, so it is simulated as two nodes closed
  // on themselves and their links' loads mapped onto all six nodes' links. The same ring
  // lowered into a schedule that already holds a transfer (one byte, chip 0 to 1) is
  // simulated whole; on the analytical network that byte delays nothing.
  const auto topo = cluster(6, kHopper);
  const CollectiveSpec spec{Op::kAllGather, Algorithm::kRing, 48 << 20};
  const auto groups = make_groups(topo, {0, 1});
  network::NetworkSpec net;
  net.fidelity = network::Fidelity::kAnalytical;
  Schedule periodic;
  lower_collective(topo, spec, groups, 0, periodic);
  Schedule whole;
  whole.add(0, 1, 1, {});
  lower_collective(topo, spec, groups, 0, whole);
  ASSERT_FALSE(periodic.link_images().empty());
  ASSERT_TRUE(whole.link_images().empty());
  EXPECT_LT(3 * periodic.size(), whole.size());
  const ScheduleResult a = run_schedule(topo, net, periodic);
  const ScheduleResult b = run_schedule(topo, net, whole);
  EXPECT_EQ(a.finish_ps, b.finish_ps);
  const auto dummy = topo.route(0, 1);
  for (std::size_t l = 0; l < topo.links().size(); ++l) {
    const bool on_dummy = std::find(dummy.begin(), dummy.end(), l) != dummy.end();
    EXPECT_EQ(a.links[l].bytes + (on_dummy ? 1 : 0), b.links[l].bytes) << "link " << l;
    if (!on_dummy) {
      EXPECT_EQ(a.links[l].busy_ps, b.links[l].busy_ps) << "link " << l;
    }
  }
}

TEST(NcclSimulation, RingsAcrossNodesStayOnTheirRails) {
  // Rail-optimised fabric of 4 nodes: GPU i of every node on rail switch i, rails joined by
  // a spine. NCCL's rings enter and leave each node on one rail, so nothing crosses the spine.
  const auto topo = cluster(4, kHopper, {4, true, 1});
  const Simulated r = simulate(topo, {Op::kAllReduce, Algorithm::kRing, 64 << 20}, {0, 1}, network::Fidelity::kAnalytical);
  for (std::size_t l = 0; l < topo.links().size(); ++l) {
    const auto& link = topo.links()[l];
    if (link.src >= topo.chips() + 4 && link.dst >= topo.chips() + 4) {
      EXPECT_EQ(r.result.links[l].bytes, 0) << "spine link " << l;
    }
  }
  // All 8 NICs of a node carry the inter-node traffic evenly.
  double first = -1;
  for (ChipId c = 0; c < 8; ++c) {
    const double b = r.result.links[topo.route(c, c + 8)[0]].bytes;
    if (first < 0) first = b;
    EXPECT_NEAR(b, first, 0.01 * first);
  }
}

TEST(NcclSimulation, TreesStreamTheirPiecesAcrossManyNodesAsNcclPredicts) {
  // NCCL's trees stream pieces up and down concurrently, so a large all-reduce takes about
  // its size over the tree's bandwidth whatever the depth. A link serves its sends in the
  // order they were added: pieces added tree by tree, or all the way up before the next piece
  // starts, made every piece wait for the one before to reach the root and come back, 4-5x
  // NCCL's prediction on 32 nodes and more.
  for (const int nodes : {8, 32, 64}) {
    const auto topo = cluster(nodes, kHopper);
    for (Algorithm a : {Algorithm::kTree, Algorithm::kNvlsTree}) {
      const Simulated r = simulate(topo, {Op::kAllReduce, a, 1ull << 30, Protocol::kSimple}, {0, 1},
                                   network::Fidelity::kAnalytical);
      ASSERT_EQ(r.resolved.algorithm, a);
      EXPECT_NEAR(r.time_s / r.resolved.nccl_predicted_s, 1.0, 0.25)
          << algorithm_name(a) << " on " << nodes << " nodes: " << r.time_s << " s against " << r.resolved.nccl_predicted_s;
    }
  }
}

TEST(NcclSimulation, ChoicesThatCannotRunAreRefusedWithTheReason) {
  const auto ampere = cluster(2, topology::NcclSpec{topology::GpuArch::kAmpere, false, false, 0});
  const auto groups = make_groups(ampere, {0});
  try {
    resolve_collective(ampere, {Op::kAllReduce, Algorithm::kNvls, 1 << 20}, groups.front());
    FAIL() << "NVLS without NVLink SHARP";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nvls: true"), std::string::npos) << e.what();
  }
  EXPECT_THROW(resolve_collective(ampere, {Op::kAllReduce, Algorithm::kNvls, 1 << 20, Protocol::kLL}, groups.front()),
               InputError);
  // Protocols are NCCL's: not on a TPU torus, nor for an operation NCCL does not tune.
  const topology::Topology torus(topology::TopologySpec{"t", topology::GridSpec{{4, 4}, {true, true}, false, {45e9, 1'000'000}}});
  EXPECT_THROW(resolve_collective(torus, {Op::kAllReduce, Algorithm::kAuto, 1024, Protocol::kLL}, make_groups(torus, {0}).front()),
               InputError);
  EXPECT_THROW(resolve_collective(ampere, {Op::kAllToAll, Algorithm::kAuto, 1024, Protocol::kLL}, groups.front()), InputError);
  // NCCL's algorithms need an NCCL cluster.
  EXPECT_THROW(resolve_collective(torus, {Op::kAllReduce, Algorithm::kTree, 1024}, make_groups(torus, {0}).front()),
               InputError);
  // Generic algorithms still run on an NCCL cluster, without a protocol.
  const Resolved d = resolve_collective(ampere, {Op::kAllReduce, Algorithm::kDimensionOrdered, 1024},
                                        make_groups(ampere, {0, 1}).front());
  EXPECT_EQ(d.algorithm, Algorithm::kDimensionOrdered);
  EXPECT_EQ(d.protocol, Protocol::kAuto);
}

TEST(NcclSimulation, TheMachinesPolicyChoosesForAuto) {
  topology::TopologySpec spec{"c", topology::SwitchSpec{2, 8, {kNvlink, kNvlinkLatency}, {47e9, 1'350'000}}};
  spec.collectives.nccl = kHopper;
  spec.collectives.algorithm = Algorithm::kNvls;
  const topology::Topology topo(spec);
  // NVLS where it runs (one node), NCCL's own choice where it cannot (across nodes).
  EXPECT_EQ(resolve_collective(topo, {Op::kAllReduce, Algorithm::kAuto, 1024}, make_groups(topo, {0}).front()).algorithm,
            Algorithm::kNvls);
  EXPECT_NE(resolve_collective(topo, {Op::kAllReduce, Algorithm::kAuto, 1024}, make_groups(topo, {0, 1}).front()).algorithm,
            Algorithm::kNvls);
}

}  // namespace
}  // namespace podsim::collectives
