#include <gtest/gtest.h>

#include <set>

#include "collectives/collective_timing.hpp"
#include "collectives/lowering.hpp"
#include "collectives/schedule_runner.hpp"
#include "collectives/transfer_estimate.hpp"
#include "topology/topology.hpp"
#include "util/error.hpp"

namespace podsim::collectives {
namespace {

topology::Topology grid(std::vector<int> dims, std::vector<bool> wrap) {
  return topology::Topology(
      topology::TopologySpec{"t", topology::GridSpec{std::move(dims), std::move(wrap), false, {45e9, 1'000'000}}});
}

TEST(Groups, OneGroupPerLineAlongTheChosenAxes) {
  const auto topo = grid({4, 3, 2}, {true, true, false});
  const auto along_x = make_groups(topo, {0});
  ASSERT_EQ(along_x.size(), 6u);
  for (const Group& g : along_x) {
    ASSERT_EQ(g.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(topo.coord(g.chips[i])[0], static_cast<int>(i));
      EXPECT_EQ(topo.coord(g.chips[i])[1], topo.coord(g.chips[0])[1]);
    }
  }
  const auto plane = make_groups(topo, {1, 0});
  ASSERT_EQ(plane.size(), 2u);
  ASSERT_EQ(plane[0].dims.size(), 2u);
  EXPECT_EQ(plane[0].dims[0].axis, 0);
  EXPECT_EQ(plane[0].dims[1].axis, 1);
  EXPECT_EQ(plane[0].size(), 12u);
  EXPECT_EQ(lines_along(plane[0], 1).size(), 4u);
  EXPECT_EQ(make_groups(topo, {0, 1, 2}).size(), 1u);
  // Splitting a plane into its columns gives the groups along y.
  const auto columns = split(plane[0], {1});
  ASSERT_EQ(columns.size(), 4u);
  EXPECT_EQ(columns[2].chips, make_groups(topo, {1})[2].chips);
}

TEST(Groups, FoldedRingOnAnOpenAxisSpansAtMostTwoLinks) {
  const std::vector<ChipId> line{10, 11, 12, 13, 14, 15};
  EXPECT_EQ(ring_order_of_line(line, false), (std::vector<ChipId>{10, 12, 14, 15, 13, 11}));
  EXPECT_EQ(ring_order_of_line({0, 1, 2, 3, 4}, false), (std::vector<ChipId>{0, 2, 4, 3, 1}));
  EXPECT_EQ(ring_order_of_line(line, true), line);
}

TEST(Lowering, RingAllReduceHasTwoNMinusOneStepsOfSOverN) {
  const auto topo = grid({8}, {true});
  Schedule s;
  lower_collective(topo, CollectiveSpec{Op::kAllReduce, Algorithm::kRing, 8000}, make_groups(topo, {0}), 0, s,
                   Symmetry::kWhole);
  ASSERT_EQ(s.size(), 8u * 14);
  for (TransferIndex i = 0; i < s.size(); ++i) {
    EXPECT_EQ(s.transfer(i).bytes, 1000u);
    EXPECT_EQ(topo.hops(s.transfer(i).src, s.transfer(i).dst), 1);
    if (i >= 8) {
      EXPECT_EQ(s.deps(i).size(), 2u);
    }
  }
}

TEST(Lowering, AWrappedTorusAxisSendsHalfWayRoundEachWayWithoutOverflow) {
  // 16 chips: 8 steps each way of (n−1)/(2n) of the array spread over them, 15/256 of it a
  // step; even at 2^62 bytes, where (n−1)·bytes would not fit in 64 bits.
  const auto topo = grid({16}, {true});
  for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{1} << 62}) {
    Schedule s;
    lower_collective(topo, CollectiveSpec{Op::kAllGather, Algorithm::kTorus, bytes}, make_groups(topo, {0}), 0, s,
                     Symmetry::kWhole);
    ASSERT_EQ(s.size(), 16u * 8 * 2);
    for (TransferIndex i = 0; i < s.size(); ++i) {
      EXPECT_EQ(s.transfer(i).bytes, bytes / 256 * 15);
      EXPECT_EQ(topo.hops(s.transfer(i).src, s.transfer(i).dst), 1);
    }
  }
}

TEST(Lowering, WrongChoicesGetClearErrors) {
  const auto topo = grid({2, 4}, {false, true});
  const auto pairs = make_groups(topo, {0});
  Schedule s;
  try {
    lower_collective(topo, CollectiveSpec{Op::kAllReduce, Algorithm::kBidirectionalRing, 1024}, pairs, 0, s);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("at least 3 chips"), std::string::npos) << e.what();
  }
  EXPECT_THROW(lower_collective(topo, CollectiveSpec{Op::kAllToAll, Algorithm::kBidirectionalRing, 1024},
                                make_groups(topo, {1}), 0, s),
               InputError);
  EXPECT_THROW(lower_collective(topo, CollectiveSpec{Op::kAllReduce, Algorithm::kHierarchical, 1024},
                                make_groups(topo, {1}), 0, s),
               InputError);
  const topology::Topology gpus(topology::TopologySpec{
      "g", topology::SwitchSpec{2, 4, {300e9, 1'000'000}, {25e9, 3'000'000}}});
  EXPECT_THROW(lower_collective(gpus, CollectiveSpec{Op::kAllReduce, Algorithm::kTorus, 1024},
                                make_groups(gpus, {0}), 0, s),
               InputError);
  const auto single = grid({1, 4}, {false, true});
  EXPECT_THROW(lower_collective(single, CollectiveSpec{Op::kAllReduce, Algorithm::kRing, 1024},
                                make_groups(single, {0}), 0, s),
               InputError);
}

TEST(Lowering, AutoPicksHierarchicalAcrossNodesTorusOnGridsRingOtherwise) {
  const topology::Topology gpus(topology::TopologySpec{
      "g", topology::SwitchSpec{4, 8, {300e9, 1'000'000}, {25e9, 3'000'000}}});
  const CollectiveSpec ar{Op::kAllReduce, Algorithm::kAuto, 1 << 20};
  EXPECT_EQ(resolve_algorithm(gpus, ar, make_groups(gpus, {0, 1})[0]), Algorithm::kHierarchical);
  EXPECT_EQ(resolve_algorithm(gpus, ar, make_groups(gpus, {0})[0]), Algorithm::kRing);
  const auto torus = grid({4, 4}, {true, true});
  EXPECT_EQ(resolve_algorithm(torus, ar, make_groups(torus, {0, 1})[0]), Algorithm::kTorus);
}

TEST(Lowering, HierarchicalAllReduceBeatsAFlatRingAcrossNodes) {
  // 4 nodes of 8 GPUs: the flat ring crosses the 25 GB/s NICs with 2(n−1)/n · S; the
  // hierarchical one only with 2(4−1)/4 · S/8.
  const topology::Topology gpus(topology::TopologySpec{
      "g", topology::SwitchSpec{4, 8, {300e9, 1'000'000}, {25e9, 3'000'000}}});
  auto time_of = [&](Algorithm a) {
    Schedule s;
    lower_collective(gpus, CollectiveSpec{Op::kAllReduce, a, 256 << 20}, make_groups(gpus, {0, 1}), 0, s);
    return to_seconds(run_schedule(gpus, network::NetworkSpec{}, s).finish_ps[0]);
  };
  const double flat = time_of(Algorithm::kRing);
  const double hier = time_of(Algorithm::kHierarchical);
  EXPECT_LT(hier, flat / 3);
  // Closed form of the hierarchical one in one piece (analytical): inner reduce-scatter and
  // all-gather rings of 8 over 2-link NVSwitch paths, outer all-reduce ring of 4 on S/8, in
  // turn. In pieces it is shorter (collective_closed_form_test.cpp, HierarchicalClosedForm).
  topology::TopologySpec in_turn{"g", topology::SwitchSpec{4, 8, {300e9, 1'000'000}, {25e9, 3'000'000}}};
  in_turn.collectives.hierarchical_pieces = 1;
  const topology::Topology one_piece(in_turn);
  Schedule s;
  lower_collective(one_piece, CollectiveSpec{Op::kAllReduce, Algorithm::kHierarchical, 256 << 20},
                   make_groups(one_piece, {0, 1}), 0, s);
  const double parts_in_turn = to_seconds(run_schedule(one_piece, network::NetworkSpec{}, s).finish_ps[0]);
  const double S = 256.0 * (1 << 20);
  const double inner = 7 * 2e-6 + 7.0 / 8 * S / 300e9;
  const double outer = 2 * 3 * 6e-6 + 2 * 3.0 / 4 * (S / 8) / 25e9;
  EXPECT_NEAR(parts_in_turn, 2 * inner + outer, 0.01 * parts_in_turn);
  EXPECT_LT(hier, 0.8 * parts_in_turn);
}

TEST(Contention, CollectivesSharingLinksSlowEachOtherDisjointOnesDoNot) {
  const auto topo = grid({8, 2}, {true, false});
  const std::uint64_t S = 512ull << 20;
  const auto rings = make_groups(topo, {0});  // two rings along x, at y = 0 and y = 1
  ASSERT_EQ(rings.size(), 2u);
  auto run = [&](const std::vector<Group>& a, const std::vector<Group>& b, network::Fidelity f) {
    Schedule s;
    lower_collective(topo, CollectiveSpec{Op::kAllReduce, Algorithm::kRing, S}, a, 0, s);
    if (!b.empty()) lower_collective(topo, CollectiveSpec{Op::kAllReduce, Algorithm::kRing, S}, b, 1, s);
    network::NetworkSpec net;
    net.fidelity = f;
    return run_schedule(topo, net, s).finish_ps;
  };
  const std::vector<Group> first{rings[0]};
  const std::vector<Group> second{rings[1]};
  const double alone = static_cast<double>(run(first, {}, network::Fidelity::kContention)[0]);
  const auto shared = run(first, first, network::Fidelity::kContention);
  EXPECT_NEAR(static_cast<double>(shared[0]) / alone, 2.0, 0.1);
  EXPECT_NEAR(static_cast<double>(shared[1]) / alone, 2.0, 0.1);
  const auto disjoint = run(first, second, network::Fidelity::kContention);
  EXPECT_NEAR(static_cast<double>(disjoint[0]) / alone, 1.0, 0.001);
  EXPECT_NEAR(static_cast<double>(disjoint[1]) / alone, 1.0, 0.001);
  // The analytical model ignores contention by design.
  const auto analytical = run(first, first, network::Fidelity::kAnalytical);
  EXPECT_EQ(analytical[0], analytical[1]);
  EXPECT_NEAR(static_cast<double>(analytical[0]) / alone, 1.0, 0.001);
}

TEST(BusBandwidth, FactorsAsNcclTestsDefineThem) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kAllToAll, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kBroadcast, 4), 1.0);
  EXPECT_EQ(op_from_name("all-gather"), Op::kAllGather);
  EXPECT_EQ(algorithm_from_name("bidir-ring"), Algorithm::kBidirectionalRing);
  EXPECT_FALSE(op_from_name("allreduce").has_value());
}

TEST(Lowering, EveryOpAndAlgorithmCompletesOnEveryLayout) {
  const std::vector<topology::Topology> layouts{
      grid({4, 4, 4}, {true, true, true}), grid({4, 3}, {false, false}),
      topology::Topology(topology::TopologySpec{
          "ms", topology::MultisliceSpec{2, topology::GridSpec{{4, 4}, {true, true}, false, {45e9, 1'000'000}},
                                         {3.125e9, 10'000'000}}}),
      topology::Topology(topology::TopologySpec{
          "g", topology::SwitchSpec{2, 4, {300e9, 1'000'000}, {25e9, 3'000'000}}})};
  for (const auto& topo : layouts) {
    std::vector<int> all;
    for (std::size_t a = 0; a < topo.axes().size(); ++a) all.push_back(static_cast<int>(a));
    for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kAllToAll, Op::kBroadcast, Op::kSendRecv}) {
      for (Algorithm a : {Algorithm::kAuto, Algorithm::kRing, Algorithm::kBidirectionalRing,
                          Algorithm::kTorus, Algorithm::kHierarchical}) {
        Schedule s;
        try {
          lower_collective(topo, CollectiveSpec{op, a, 1 << 20}, make_groups(topo, all), 0, s);
        } catch (const InputError&) {
          continue;  // a combination that cannot run says so; checked above
        }
        for (auto f : {network::Fidelity::kAnalytical, network::Fidelity::kContention}) {
          network::NetworkSpec net;
          net.fidelity = f;
          const auto r = run_schedule(topo, net, s);
          EXPECT_GT(r.finish_ps[0], 0) << topo.kind() << " " << op_name(op) << " " << algorithm_name(a);
        }
      }
    }
  }
}

}  // namespace
}  // namespace podsim::collectives

namespace podsim::collectives {
namespace {

topology::TopologySpec v4_4x4x8(bool twisted, bool x_wraps) {
  topology::GridSpec g;
  g.dims = {4, 4, 8};
  g.wraparound = {x_wraps, true, true};
  g.twisted = twisted;
  g.link = topology::LinkSpec{45e9, 1'000'000};
  return topology::TopologySpec{"v4-4x4x8", g};
}

TEST(TwistedTorus, ALineAlongAShortAxisIsAnOpenLineOnBothNetworks) {
  // On a twisted k×k×2k torus the wraparound of x (and y) leads from x = 3 to x = 0 of the
  // plane z + 4: a line along x is not a ring (z, the long axis, still closes on itself).
  // A collective along x is then the open line's — exactly the time of the same shape with
  // no x wraparound — on both networks, with no link above 100 %.
  const topology::Topology twisted(v4_4x4x8(true, true));
  EXPECT_FALSE(twisted.axes()[0].ring);
  EXPECT_FALSE(twisted.axes()[1].ring);
  EXPECT_TRUE(twisted.axes()[2].ring);
  EXPECT_TRUE(twisted.axes()[0].wraparound);  // the links are there; they lead elsewhere
  const topology::Topology open_x(v4_4x4x8(false, false));
  const auto along_x = make_groups(twisted, {0});
  ASSERT_FALSE(along_x.front().dims.front().wraps);
  const CollectiveSpec ag{Op::kAllGather, Algorithm::kAuto, 64 << 20};
  network::NetworkSpec analytical;
  network::NetworkSpec contention;
  contention.fidelity = network::Fidelity::kContention;
  const CollectiveTiming line = time_collective(open_x, analytical, ag, make_groups(open_x, {0}));
  for (const auto& net : {analytical, contention}) {
    const CollectiveTiming t = time_collective(twisted, net, ag, along_x);
    EXPECT_NEAR(t.time_s, line.time_s, 1e-3 * line.time_s) << network::fidelity_name(net.fidelity);
    EXPECT_LE(t.max_link_utilization, 1.0 + 1e-9);
    EXPECT_FALSE(t.link_bound);
  }
}

TEST(TransferEstimate, CountsWhatEachLoweringBuildsWithoutBuildingIt) {
  // Every algorithm and operation on tori (wrapped, open, odd, twisted-free), a multislice
  // pod and GPU clusters (with and without NCCL): the estimate is the schedule's size
  // exactly for podsim's own lowerings, and at least it (at most 64 times: pieces at their
  // caps) for NCCL's. Groups are lowered one alone (as the analytical network does) and all
  // together (as the contention network does).
  topology::TopologySpec nccl_spec{"n", topology::SwitchSpec{8, 8, {370.8e9, 300'000}, {47e9, 1'350'000}, {}}};
  nccl_spec.collectives.nccl = topology::NcclSpec{topology::GpuArch::kHopper, true, true, 5'000'000};
  topology::TopologySpec one_node{"n1", topology::SwitchSpec{1, 8, {370.8e9, 300'000}, {47e9, 1'350'000}, {}}};
  one_node.collectives.nccl = topology::NcclSpec{topology::GpuArch::kHopper, true, false, 5'000'000};
  const std::vector<topology::Topology> layouts{
      grid({4, 3, 2}, {true, true, false}),
      grid({5, 4}, {true, false}),
      grid({8}, {true}),
      topology::Topology(topology::TopologySpec{
          "ms", topology::MultisliceSpec{3, topology::GridSpec{{4, 4}, {true, true}, false, {45e9, 1'000'000}},
                                         {3.125e9, 10'000'000}}}),
      topology::Topology(topology::TopologySpec{"g", topology::SwitchSpec{3, 4, {300e9, 1'000'000}, {25e9, 3'000'000}}}),
      topology::Topology(nccl_spec),
      topology::Topology(one_node)};
  int compared = 0;
  for (const auto& topo : layouts) {
    std::vector<std::vector<int>> axis_sets{{0}};
    std::vector<int> all;
    for (std::size_t a = 0; a < topo.axes().size(); ++a) all.push_back(static_cast<int>(a));
    axis_sets.push_back(all);
    if (topo.axes().size() > 1) axis_sets.push_back({1});
    for (const auto& axes : axis_sets) {
      const auto groups = make_groups(topo, axes);
      if (groups.front().size() < 2) continue;
      for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kAllToAll, Op::kBroadcast, Op::kSendRecv}) {
        for (Algorithm a : {Algorithm::kAuto, Algorithm::kRing, Algorithm::kBidirectionalRing, Algorithm::kTorus,
                            Algorithm::kHierarchical, Algorithm::kDimensionOrdered, Algorithm::kTree, Algorithm::kNvls,
                            Algorithm::kNvlsTree, Algorithm::kCollNet}) {
          for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{64} << 20}) {
            const CollectiveSpec spec{op, a, bytes};
            Resolved resolved;
            try {
              resolved = resolve_collective(topo, spec, groups.front());
            } catch (const InputError&) {
              continue;
            }
            for (const std::size_t together : {std::size_t{1}, groups.size()}) {
              Schedule s;
              lower_collective(topo, spec, std::vector<Group>(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(together)), 0, s);
              const double estimate = estimate_transfers(topo, spec, groups.front(), together);
              const double most = max_cost(topo, op, groups.front(), together);
              const auto size = static_cast<double>(s.size());
              const std::string what = topo.name() + " axes " + std::to_string(axes.size()) + " " +
                                       std::string(op_name(op)) + " " + std::string(algorithm_name(resolved.algorithm)) +
                                       " " + std::to_string(bytes) + " B × " + std::to_string(together);
              if (resolved.protocol == Protocol::kAuto) {
                EXPECT_EQ(estimate, size) << what;
              } else {
                EXPECT_GE(estimate, size) << what;
                EXPECT_LE(estimate, 64 * size + 64) << what;
              }
              if (a == Algorithm::kAuto) {
                EXPECT_GE(most, size) << what;
              }
              ++compared;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 300);
}

}  // namespace
}  // namespace podsim::collectives

namespace podsim::collectives {
namespace {

TEST(Contention, FlowsAreTheLimitOfFinerChunksOnEveryCollectiveOfATorusOrASwitch) {
  // The flow model (one fluid per message) against the chunk model cut finely (256 chunks of
  // at least 1 KiB): every op and algorithm that runs, one group of every chip and many
  // groups at once, on a torus and a switched cluster. Where no message waits behind a busier
  // link downstream of its first, the two agree to a fraction of a percent. Where messages of
  // several hops share links (all-to-all, half-way sends round a ring) they need not: checked
  // below.
  const std::vector<topology::Topology> layouts{
      grid({4, 4, 4}, {true, true, true}),
      topology::Topology(topology::TopologySpec{
          "g", topology::SwitchSpec{2, 4, {300e9, 1'000'000}, {25e9, 3'000'000}}})};
  for (const auto& topo : layouts) {
    std::vector<int> all;
    for (std::size_t a = 0; a < topo.axes().size(); ++a) all.push_back(static_cast<int>(a));
    for (const auto& axes : {all, std::vector<int>{0}}) {
      for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBroadcast}) {
        for (Algorithm a : {Algorithm::kAuto, Algorithm::kRing, Algorithm::kBidirectionalRing, Algorithm::kTorus,
                            Algorithm::kHierarchical}) {
          for (std::uint64_t bytes : {1ull << 20, 64ull << 20}) {
            Schedule s;
            try {
              lower_collective(topo, CollectiveSpec{op, a, bytes}, make_groups(topo, axes), 0, s);
            } catch (const InputError&) {
              continue;
            }
            network::NetworkSpec net;
            net.fidelity = network::Fidelity::kContention;
            net.contention = network::ContentionModel::kChunk;
            net.max_chunks = 256;
            net.min_chunk_bytes = 1024;
            const auto chunks = run_schedule(topo, net, s);
            net.contention = network::ContentionModel::kFlow;
            const auto flows = run_schedule(topo, net, s);
            const std::string what = topo.kind() + " " + std::string(op_name(op)) + " " +
                                     std::string(algorithm_name(a)) + " " + std::to_string(bytes);
            EXPECT_NEAR(static_cast<double>(flows.finish_ps[0]) / static_cast<double>(chunks.finish_ps[0]), 1.0,
                        0.005)
                << what;
            // The same bytes on the same links, and a flow's events do not grow with its size.
            for (std::size_t l = 0; l < flows.links.size(); ++l) {
              EXPECT_DOUBLE_EQ(flows.links[l].bytes, chunks.links[l].bytes) << what;
            }
            EXPECT_LT(flows.events, chunks.events) << what;
          }
        }
      }
    }
  }
}

TEST(Contention, FlowsKeepTheBusiestLinkBusyWhereChunksQueuedBehindEachOtherIdleIt) {
  // A torus all-reduce on an 8x4 torus sends half-way round the 4-ring both ways: messages of
  // two hops that share links. Its busiest link is busy for B = its bytes / bandwidth; no
  // model can finish sooner. The flows finish within 2 % of it; the chunks, queued first come
  // first served link by link, leave links idle and take longer.
  const auto topo = grid({8, 4}, {true, true});
  Schedule s;
  lower_collective(topo, CollectiveSpec{Op::kAllReduce, Algorithm::kTorus, 64ull << 20}, make_groups(topo, {0, 1}),
                   0, s);
  network::NetworkSpec net;
  net.fidelity = network::Fidelity::kContention;
  net.contention = network::ContentionModel::kFlow;
  const auto flows = run_schedule(topo, net, s);
  SimTime busiest = 0;
  for (const auto& l : flows.links) busiest = std::max(busiest, l.busy_ps);
  EXPECT_GE(flows.finish_ps[0], busiest);
  EXPECT_LE(static_cast<double>(flows.finish_ps[0]), 1.02 * static_cast<double>(busiest));
  net.contention = network::ContentionModel::kChunk;
  const auto chunks = run_schedule(topo, net, s);
  EXPECT_GT(static_cast<double>(chunks.finish_ps[0]), 1.2 * static_cast<double>(busiest));
}

TEST(Contention, AFlowHeldDownstreamLeavesItsSourceNoFasterThanItsShareThereAChunkedOneDoes) {
  // Chips 0 and 1 of a line both send S to chip 2: they share the link 1 -> 2. Both arrive
  // after 2·S/B on either model. The chunk model buffers without limit, so chip 0's last chunk
  // leaves its own link after S/B and waits at chip 1; the flow model has no buffer (as a
  // lossless fabric's credits allow little), so chip 0's send ends with its share of 1 -> 2.
  // A sender that goes on when its send has left (a pairwise all-to-all's next round) runs
  // ahead on the chunk model: docs/collectives.md, "Flows and chunks".
  const auto topo = grid({3}, {false});
  const std::uint64_t S = 64ull << 20;
  const SimTime serial = transfer_time_ps(static_cast<double>(S), 45e9);
  for (const auto model : {network::ContentionModel::kChunk, network::ContentionModel::kFlow}) {
    Schedule s;
    s.add(0, 2, S, {});
    s.add(1, 2, S, {});
    s.add(0, 1, S, std::vector<TransferIndex>{0});  // chip 0's next send waits for its first to leave
    network::NetworkSpec net;
    net.fidelity = network::Fidelity::kContention;
    net.contention = model;
    const SimTime end = run_schedule(topo, net, s).finish_ps[0];
    if (model == network::ContentionModel::kFlow) {
      // 0 -> 2 and 1 -> 2 at half rate until 2·S/B; then 0 -> 1 alone.
      EXPECT_NEAR(static_cast<double>(end), static_cast<double>(2 * serial + serial + 1'000'000), 4.0);
    } else {
      // 0 -> 1 starts after S/B (and shares 0 -> 1 with nobody): it is in by 2·S/B + α, and the
      // last chunk of 0 -> 2 arrives at 2·S/B + 2α.
      EXPECT_NEAR(static_cast<double>(end), static_cast<double>(2 * serial + 2'000'000), 0.02 * static_cast<double>(serial));
    }
  }
}

}  // namespace
}  // namespace podsim::collectives
