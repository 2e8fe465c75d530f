#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "topology/device_mesh.hpp"
#include "topology/graph_analysis.hpp"
#include "topology/topology.hpp"
#include "topology/topology_cache.hpp"
#include "util/error.hpp"

namespace podsim::topology {
namespace {

constexpr double kGBps = 1e9;
constexpr SimTime kUs = 1'000'000;

TopologySpec grid(std::vector<int> dims, std::vector<bool> wrap, bool twisted = false) {
  return TopologySpec{"test", GridSpec{std::move(dims), std::move(wrap), twisted,
                                       LinkSpec{45 * kGBps, kUs}}};
}

int all_pairs_diameter(const Topology& t) {
  int d = 0;
  for (ChipId c = 0; c < t.chips(); ++c) {
    const auto dist = hop_distances(t, c);
    for (ChipId o = 0; o < t.chips(); ++o) d = std::max(d, dist[o]);
  }
  return d;
}

TEST(Topology, FullTpuV4PodHas4096ChipsSixNeighboursDiameter24) {
  const Topology t(grid({16, 16, 16}, {true, true, true}));
  EXPECT_EQ(t.chips(), 4096u);
  EXPECT_EQ(t.kind(), "torus");
  for (ChipId c = 0; c < t.chips(); ++c) {
    std::set<VertexId> neighbours;
    for (LinkId l : t.out_links(c)) neighbours.insert(t.link(l).dst);
    ASSERT_EQ(neighbours.size(), 6u) << "chip " << c;
  }
  const TopologyFacts f = analyze(t);
  EXPECT_EQ(f.links, 4096u * 6);
  // 8 hops the short way round each of 3 axes of 16.
  EXPECT_EQ(f.diameter, 24);
  // A plane across z cuts 256 links, twice (the wrap): 512 links × 45 GB/s = 23.04 TB/s;
  // Google quotes 24 TB/s bisection for a v4 pod (docs/reference/hardware.md §2.1).
  EXPECT_DOUBLE_EQ(f.bisection_Bps, 512 * 45 * kGBps);
  EXPECT_EQ(f.ring_Bps, (std::vector<double>{90 * kGBps, 90 * kGBps, 90 * kGBps}));
}

TEST(Topology, MeshDiameterIsSumOfAxisLengthsMinusOne) {
  const Topology t(grid({4, 4}, {false, false}));
  EXPECT_EQ(t.kind(), "mesh");
  const TopologyFacts f = analyze(t);
  EXPECT_EQ(f.diameter, 6);  // corner to corner: 3 + 3
  EXPECT_EQ(f.links, 2u * (4 * 3 + 4 * 3));
  // 4 links cross the middle of a 4x4 mesh.
  EXPECT_DOUBLE_EQ(f.bisection_Bps, 4 * 45 * kGBps);
  EXPECT_EQ(f.ring_Bps, (std::vector<double>{45 * kGBps, 45 * kGBps}));
}

TEST(Topology, DiameterFromChipZeroEqualsAllPairs) {
  for (const auto& spec :
       {grid({4, 4, 4}, {true, true, true}), grid({4, 6}, {false, true}),
        grid({3, 5, 2}, {true, false, false}), grid({4, 4, 8}, {true, true, true}, true),
        grid({4, 8, 8}, {true, true, true}, true), grid({8, 4, 4}, {true, true, true}, true)}) {
    const Topology t(spec);
    EXPECT_EQ(analyze(t).diameter, all_pairs_diameter(t)) << t.kind();
  }
}

TEST(Topology, RoutesFollowDimensionOrderTheShortWayRound) {
  const Topology t(grid({8, 8, 8}, {true, true, true}));
  const ChipId src = t.chip_at({1, 2, 3, 0});
  const ChipId dst = t.chip_at({7, 5, 3, 0});
  const auto path = t.route(src, dst);
  // x: 1 -> 7 is 2 hops backwards through the wrap; then y: 2 -> 5 is 3 hops forwards.
  ASSERT_EQ(path.size(), 5u);
  std::vector<std::pair<int, int>> steps;
  for (LinkId l : path) steps.emplace_back(t.link(l).axis, t.link(l).dir);
  const std::vector<std::pair<int, int>> expected{{0, -1}, {0, -1}, {1, 1}, {1, 1}, {1, 1}};
  EXPECT_EQ(steps, expected);
  EXPECT_EQ(t.link(path.back()).dst, dst);
  EXPECT_EQ(t.hops(src, dst), 5);
  // A tie (4 of 8) goes the + way.
  const auto tie = t.route(t.chip_at({0, 0, 0, 0}), t.chip_at({4, 0, 0, 0}));
  ASSERT_EQ(tie.size(), 4u);
  EXPECT_EQ(t.link(tie[0]).dir, +1);
}

TEST(Topology, EveryRouteIsMinimalOnATwistedTorus) {
  const Topology t(grid({4, 4, 8}, {true, true, true}, true));
  EXPECT_EQ(t.kind(), "twisted torus");
  for (ChipId s = 0; s < t.chips(); s += 7) {
    const auto dist = hop_distances(t, s);
    for (ChipId d = 0; d < t.chips(); ++d) {
      const auto path = t.route(s, d);
      ASSERT_EQ(static_cast<int>(path.size()), dist[d]) << s << " -> " << d;
      if (!path.empty()) {
        EXPECT_EQ(t.link(path.front()).src, s);
        EXPECT_EQ(t.link(path.back()).dst, d);
      }
    }
  }
}

TEST(Topology, TwistingAKByKBy2KTorusShortensItAndDoublesItsBisection) {
  const TopologyFacts plain = analyze(Topology(grid({4, 4, 8}, {true, true, true})));
  const TopologyFacts twisted = analyze(Topology(grid({4, 4, 8}, {true, true, true}, true)));
  EXPECT_EQ(plain.diameter, 8);
  EXPECT_LT(twisted.diameter, plain.diameter);
  // Plain: the cut across z is the weakest, 2 × 16 links. Twisted: the x and y wraps also
  // cross that cut, so the weakest cut is across x, 2 × 32 links.
  EXPECT_DOUBLE_EQ(plain.bisection_Bps, 32 * 45 * kGBps);
  EXPECT_DOUBLE_EQ(twisted.bisection_Bps, 64 * 45 * kGBps);
}

TEST(Topology, MultisliceJoinsSlicesThroughTheDcn) {
  TopologySpec spec{"ms", MultisliceSpec{2, GridSpec{{4, 4}, {false, false}, false,
                                                     LinkSpec{45 * kGBps, kUs}},
                                         LinkSpec{3.125 * kGBps, 10 * kUs}}};
  const Topology t(spec);
  EXPECT_EQ(t.chips(), 32u);
  ASSERT_EQ(t.axes().size(), 3u);
  EXPECT_EQ(t.axes()[2].name, "slice");
  const ChipId a = t.chip_at({1, 1, 0, 0});
  const ChipId b = t.chip_at({1, 1, 1, 0});  // coordinates follow axes(): x, y, slice
  EXPECT_EQ(t.coord(b)[2], 1);
  const auto path = t.route(a, b);
  ASSERT_EQ(path.size(), 2u);
  EXPECT_EQ(t.link(path[0]).tier, LinkTier::kDcn);
  EXPECT_EQ(t.hops(a, b), 2);
  const TopologyFacts f = analyze(t);
  EXPECT_EQ(f.diameter, 6);
  // Cut between the slices: 16 chips each side × 3.125 GB/s.
  EXPECT_DOUBLE_EQ(f.bisection_Bps, 16 * 3.125 * kGBps);
}

TEST(Topology, GpuClusterRoutesThroughNvSwitchInsideANodeAndTheFabricOutside) {
  TopologySpec spec{"gpu", SwitchSpec{4, 8, LinkSpec{300 * kGBps, kUs}, LinkSpec{25 * kGBps, 5 * kUs}}};
  const Topology t(spec);
  EXPECT_EQ(t.chips(), 32u);
  const auto inside = t.route(t.chip_at({0, 1, 0, 0}), t.chip_at({5, 1, 0, 0}));
  ASSERT_EQ(inside.size(), 2u);
  EXPECT_EQ(t.link(inside[0]).tier, LinkTier::kNodeSwitch);
  const auto across = t.route(t.chip_at({0, 1, 0, 0}), t.chip_at({0, 3, 0, 0}));
  ASSERT_EQ(across.size(), 2u);
  EXPECT_EQ(t.link(across[1]).tier, LinkTier::kScaleOut);
  const TopologyFacts f = analyze(t);
  EXPECT_EQ(f.diameter, 2);
  EXPECT_DOUBLE_EQ(f.bisection_Bps, 16 * 25 * kGBps);  // half the GPUs' NICs
  EXPECT_EQ(f.ring_Bps, (std::vector<double>{300 * kGBps, 25 * kGBps}));
}

TEST(Topology, RejectsImpossibleShapes) {
  EXPECT_THROW(Topology(grid({4, 4}, {true})), InputError);
  EXPECT_THROW(Topology(grid({2, 4}, {true, true})), InputError);
  EXPECT_THROW(Topology(grid({4, 4, 6}, {true, true, true}, true)), InputError);
  EXPECT_THROW(Topology(grid({0, 4}, {false, false})), InputError);
}

TEST(DeviceMesh, TheFirstGroupIsTheFirstOfAllGroupsOnEveryAxis) {
  // first_group stands for groups().front() where only the shape and the count matter (the
  // work estimate of a step): same chips in the same order, same dimensions, and
  // chips / size groups in all.
  const Topology topo(grid({4, 4, 8}, {true, true, true}));
  const DeviceMesh mesh(topo, {{"tp", 8, {}}, {"dp", 4, {}}, {"pp", 4, {}}});
  for (int a = 0; a < static_cast<int>(mesh.axes().size()); ++a) {
    const auto all = mesh.groups(a);
    const Group first = mesh.first_group(a);
    EXPECT_EQ(first.chips, all.front().chips) << mesh.axes()[static_cast<std::size_t>(a)].name;
    ASSERT_EQ(first.dims.size(), all.front().dims.size());
    for (std::size_t d = 0; d < first.dims.size(); ++d) {
      EXPECT_EQ(first.dims[d].axis, all.front().dims[d].axis);
      EXPECT_EQ(first.dims[d].size, all.front().dims[d].size);
      EXPECT_EQ(first.dims[d].wraps, all.front().dims[d].wraps);
    }
    EXPECT_EQ(all.size(), topo.chips() / static_cast<std::size_t>(mesh.axes()[static_cast<std::size_t>(a)].size));
  }
}

TEST(TopologyCache, BuildsEachSpecOnceAndKeepsTheLastFour) {
  TopologyCache cache;
  const Topology& a = cache.get(grid({4, 4}, {true, true}));
  EXPECT_EQ(&cache.get(grid({4, 4}, {true, true})), &a);  // an equal spec: the same machine
  EXPECT_EQ(a.chips(), 16u);
  // Specs that differ in anything (here the link) are other machines.
  TopologySpec slower = grid({4, 4}, {true, true});
  std::get<GridSpec>(slower.layout).link.bandwidth_Bps /= 2;
  const Topology& b = cache.get(slower);
  EXPECT_NE(&b, &a);
  EXPECT_EQ(b.link(0).bandwidth_Bps * 2, a.link(0).bandwidth_Bps);
  // Asking again moves a spec to the front: a and b survive three more, then a fourth new one
  // evicts the least recent (b, after a is asked for again).
  cache.get(grid({2, 2}, {false, false}));
  cache.get(grid({8}, {true}));
  EXPECT_EQ(&cache.get(grid({4, 4}, {true, true})), &a);
  cache.get(grid({3, 3}, {true, true}));
  EXPECT_EQ(&cache.get(grid({4, 4}, {true, true})), &a);
  EXPECT_EQ(cache.get(slower).link(0).bandwidth_Bps, a.link(0).bandwidth_Bps / 2);  // built again
}

TEST(TopologyCache, ASpecThatFailsFailsAgain) {
  TopologyCache cache;
  EXPECT_THROW(cache.get(grid({4, 4, 4}, {true, true, true}, true)), InputError);
  EXPECT_THROW(cache.get(grid({4, 4, 4}, {true, true, true}, true)), InputError);
}

}  // namespace
}  // namespace podsim::topology
