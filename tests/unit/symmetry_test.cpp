// A symmetric collective lowered as one period (lower_collective's Symmetry::kPeriod) must
// time and load every link exactly as the whole collective does, on every network model.
#include <gtest/gtest.h>

#include <map>

#include "collectives/lowering.hpp"
#include "collectives/schedule_runner.hpp"
#include "collectives/transfer_estimate.hpp"
#include "topology/topology.hpp"

namespace podsim::collectives {
namespace {

struct Model {
  const char* name;
  network::Fidelity fidelity;
  network::ContentionModel contention;
};

const Model kModels[] = {{"analytical", network::Fidelity::kAnalytical, network::ContentionModel::kAuto},
                         {"flows", network::Fidelity::kContention, network::ContentionModel::kFlow},
                         {"chunks", network::Fidelity::kContention, network::ContentionModel::kChunk}};

topology::Topology grid(std::vector<int> dims, std::vector<bool> wrap) {
  return topology::Topology(
      topology::TopologySpec{"t", topology::GridSpec{std::move(dims), std::move(wrap), false, {45e9, 1'000'000}}});
}

topology::Topology multislice(int slices, std::vector<int> dims) {
  std::vector<bool> wrap;
  for (const int d : dims) wrap.push_back(d >= 3);
  return topology::Topology(topology::TopologySpec{
      "ms", topology::MultisliceSpec{slices, topology::GridSpec{std::move(dims), std::move(wrap), false, {45e9, 1'000'000}},
                                     {3.125e9, 10'000'000}}});
}

/// Lowers `spec` on `groups` both ways and runs both on every model: the same finish, the
/// same load on every link. Returns whether the period is smaller than the whole.
bool period_matches_whole(const topology::Topology& topo, const CollectiveSpec& spec, const std::vector<Group>& groups,
                          const std::string& what) {
  Schedule period;
  Schedule whole;
  lower_collective(topo, spec, groups, 0, period, Symmetry::kPeriod);
  lower_collective(topo, spec, groups, 0, whole, Symmetry::kWhole);
  EXPECT_TRUE(whole.link_images().empty()) << what;
  EXPECT_DOUBLE_EQ(period.mean_bytes(), whole.mean_bytes())
      << what << ": a period's mean message is its whole's (flows or chunks alike)";
  EXPECT_EQ(estimate_transfers(topo, spec, groups.front(), groups.size(), Symmetry::kWhole),
            static_cast<double>(whole.size()))
      << what;
  // Every hop of the period summed onto the hops it stands for is the whole's traffic, phase
  // by phase (what the comm model charges and replays on other groups).
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint64_t> stood_for;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint64_t> traffic;
  for (TransferIndex i = 0; i < whole.size(); ++i) {
    const PlannedTransfer& t = whole.transfer(i);
    traffic[{t.phase, (std::uint64_t{t.src} << 32) | t.dst}] += t.bytes;
  }
  for (TransferIndex i = 0; i < period.size(); ++i) {
    const PlannedTransfer& t = period.transfer(i);
    const std::uint64_t hop = (std::uint64_t{t.src} << 32) | t.dst;
    if (period.link_images().empty()) {
      stood_for[{t.phase, hop}] += t.bytes;
    } else {
      EXPECT_FALSE(period.hop_images(hop).empty()) << what;
      for (const auto& [from, to] : period.hop_images(hop)) stood_for[{t.phase, to}] += t.bytes;
    }
  }
  EXPECT_EQ(stood_for, traffic) << what << ": the period's hops stand for the whole's traffic";
  for (const Model& m : kModels) {
    network::NetworkSpec net;
    net.fidelity = m.fidelity;
    net.contention = m.contention;
    const ScheduleResult a = run_schedule(topo, net, period);
    const ScheduleResult b = run_schedule(topo, net, whole);
    EXPECT_EQ(a.finish_ps, b.finish_ps) << what << " on " << m.name;
    EXPECT_LT(a.events, b.events + 1) << what << " on " << m.name;
    EXPECT_EQ(a.links.size(), b.links.size());
    if (a.links.size() != b.links.size()) return false;
    int differ = 0;
    for (std::size_t l = 0; l < a.links.size(); ++l) {
      if (a.links[l].bytes != b.links[l].bytes || a.links[l].busy_ps != b.links[l].busy_ps) ++differ;
    }
    EXPECT_EQ(differ, 0) << what << " on " << m.name << ": links loaded otherwise";
  }
  return period.size() < whole.size();
}

/// A machine, the axes its groups span, and whether the first group alone is lowered as a
/// period smaller than its whole.
struct Case {
  topology::Topology topo;
  std::vector<int> axes;
  bool symmetric;
};

TEST(Symmetry, ATorusCollectiveOnOneLinePerAxisIsTheWholeCollective) {
  // (A group of one line runs as a ring of two, as a ring does.)
  const std::vector<Case> cases{
      {grid({4, 4, 4}, {true, true, true}), {0, 1, 2}, true},
      {grid({8, 4}, {true, true}), {0, 1}, true},
      {grid({5, 3}, {true, true}), {0, 1}, true},
      {grid({4, 2}, {true, false}), {0, 1}, true},  // a 2-chip axis is symmetric without its wrap
      {grid({4, 4}, {true, true}), {0}, true},       // a group of one line: a ring of two
      {grid({9}, {true}), {0}, true},
      {grid({3}, {true}), {0}, false},               // 3 chips: nothing worth leaving out
      {grid({4, 4}, {true, false}), {0, 1}, false},  // a folded ring is not symmetric
      {grid({4, 4, 2}, {true, true, false}), {0, 1, 2}, true}};
  for (const Case& c : cases) {
    const auto groups = make_groups(c.topo, c.axes);
    const std::vector<Group> first(groups.begin(), groups.begin() + 1);
    for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}) {
      for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{48} << 20}) {
        const CollectiveSpec spec{op, Algorithm::kTorus, bytes};
        const std::string what = c.topo.kind() + " " + std::to_string(c.topo.chips()) + " chips, " +
                                 std::string(op_name(op)) + " of " + std::to_string(bytes) + " B";
        EXPECT_EQ(period_matches_whole(c.topo, spec, first, what), c.symmetric) << what;
        Schedule s;
        lower_collective(c.topo, spec, first, 0, s);
        EXPECT_EQ(estimate_transfers(c.topo, spec, first.front(), 1), static_cast<double>(s.size())) << what;
        if (groups.size() > 1) {
          // Several groups: each whole, on one schedule.
          Schedule all;
          lower_collective(c.topo, spec, groups, 0, all);
          EXPECT_TRUE(all.link_images().empty()) << what;
        }
      }
    }
  }
}

TEST(Symmetry, ARingWhoseHopsAreAlikeRunsAsARingOfTwo) {
  const std::vector<Case> cases{
      {grid({8}, {true}), {0}, true},
      {grid({7}, {true}), {0}, true},                 // an odd ring: its last hop stands in for 0 -> 1
      {grid({4, 4}, {true, true}), {0, 1}, true},     // a snake whose every hop is one link
      {grid({6}, {false}), {0}, false},               // folded: hops of one and of two links
      {grid({3}, {true}), {0}, false}};               // 3 chips: nothing worth leaving out
  for (const Case& c : cases) {
    const auto groups = make_groups(c.topo, c.axes);
    const std::vector<Group> first(groups.begin(), groups.begin() + 1);
    for (Algorithm a : {Algorithm::kRing, Algorithm::kBidirectionalRing}) {
      for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}) {
        const CollectiveSpec spec{op, a, std::uint64_t{24} << 20};
        const std::string what = std::string(algorithm_name(a)) + " on " + std::to_string(c.topo.chips()) +
                                 " chips (" + c.topo.kind() + "), " + std::string(op_name(op));
        EXPECT_EQ(period_matches_whole(c.topo, spec, first, what), c.symmetric) << what;
        Schedule s;
        lower_collective(c.topo, spec, first, 0, s);
        EXPECT_EQ(estimate_transfers(c.topo, spec, first.front(), 1), static_cast<double>(s.size())) << what;
      }
    }
  }
}

TEST(Symmetry, AMultisliceCollectiveOnTwoSlicesIsTheWholeCollective) {
  for (const int slices : {3, 4, 5}) {
    const auto topo = multislice(slices, {4, 2});
    // Every chip (axis 2 is the slices); x and the slices (a group per row y); y and the
    // slices (a group per column x).
    for (const std::vector<int>& axes : {std::vector<int>{0, 1, 2}, std::vector<int>{0, 2}, std::vector<int>{1, 2}}) {
      const auto all = make_groups(topo, axes);
      for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}) {
        for (std::uint64_t bytes : {std::uint64_t{8192}, std::uint64_t{32} << 20}) {
          const CollectiveSpec spec{op, Algorithm::kHierarchical, bytes};
          const std::string what = std::to_string(slices) + " slices, " + std::to_string(all.size()) + " groups of " +
                                   std::to_string(all.front().size()) + ", " + std::string(op_name(op)) + " of " +
                                   std::to_string(bytes) + " B";
          EXPECT_TRUE(period_matches_whole(topo, spec, all, what)) << what;
          Schedule s;
          lower_collective(topo, spec, all, 0, s);
          EXPECT_EQ(estimate_transfers(topo, spec, all.front(), all.size()), static_cast<double>(s.size())) << what;
        }
      }
    }
  }
}

TEST(Symmetry, TwoSlicesAreTheWholeOnTwoSlices) {
  // Nothing to leave out: lowered whole, without images.
  const auto topo = multislice(2, {4, 2});
  const auto groups = make_groups(topo, {0, 1, 2});
  Schedule s;
  lower_collective(topo, {Op::kAllReduce, Algorithm::kHierarchical, 1 << 20}, groups, 0, s);
  EXPECT_TRUE(s.link_images().empty());
}

TEST(Symmetry, AMirroredChipWaitsAsItsCounterpart) {
  // Chip 2 mirrors chip 0, which sent transfer a and received transfer b: chip 2's send
  // waits for a's departure and b's arrival, as chip 0's own would.
  const auto topo = grid({4}, {true});
  Schedule s;
  const TransferIndex a = s.add(0, 1, 45'000'000, {});  // 1 ms on the wire
  const TransferIndex b = s.add(3, 0, 90'000'000, {});  // 2 ms
  Frontier f(topo.vertices());
  f.add(0, a);
  f.add(0, b);
  f.mirror(s, 0, 2);
  const auto ready = f.ready(2);
  ASSERT_EQ(ready.size(), 2u);
  EXPECT_EQ(ready[0], a | kOnDeparture);
  EXPECT_EQ(ready[1], b | kOnArrival);
  s.add(2, 1, 45'000'000, ready);
  EXPECT_TRUE(s.mirrored());
  network::NetworkSpec net;
  net.fidelity = network::Fidelity::kAnalytical;
  const ScheduleResult r = run_schedule(topo, net, s);
  // b arrives at 2 ms + 1 µs; chip 2's transfer then takes 1 ms + 1 µs.
  EXPECT_EQ(r.finish_ps[0], SimTime{3'002'000'000});
}

}  // namespace
}  // namespace podsim::collectives
