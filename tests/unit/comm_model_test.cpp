// The step's communication as measured on the contention-aware network
// (runtime/network_comm_model.hpp): a collective run by every group of an axis at once.
#include <gtest/gtest.h>

#include "collectives/collective_timing.hpp"
#include "collectives/schedule_runner.hpp"
#include "runtime/network_comm_model.hpp"
#include "topology/device_mesh.hpp"

namespace podsim::runtime {
namespace {

using parallelism::CommAxis;
using parallelism::CommOp;

/// Every group of `axis` in pipeline stage 0, simulated together.
SimTime together(const topology::Topology& topo, const topology::DeviceMesh& mesh, const network::NetworkSpec& net,
                 const char* axis, std::uint64_t bytes) {
  std::vector<collectives::Group> in_stage;
  const auto pp = static_cast<std::size_t>(mesh.axis_index("pp"));
  for (const auto& g : mesh.groups(mesh.axis_index(axis))) {
    if (mesh.coords(g.chips.front())[pp] == 0) in_stage.push_back(g);
  }
  const auto t = collectives::time_collective(
      topo, net, {collectives::Op::kAllReduce, collectives::Algorithm::kAuto, bytes}, in_stage);
  return static_cast<SimTime>(t.time_s * 1e12 + 0.5);
}

TEST(ContentionCommModel, GroupsOnLinksOfTheirOwnAreTimedByOneAndInterleavedOnesTogether) {
  // 8x4x2 (z open). tp 2 takes x's inner block (x = 0–1, 2–3, …): its groups are images of one
  // another on links of their own. dp 4 takes the rest of x (x = 0, 2, 4, 6 and 1, 3, 5, 7):
  // its two groups cross the same x links.
  const topology::Topology topo(topology::TopologySpec{
      "t", topology::GridSpec{{8, 4, 2}, {true, true, false}, false, {45e9, 1'000'000}}});
  const topology::DeviceMesh mesh(topo, {{"tp", 2, {"x"}}, {"dp", 4, {"x"}}, {"pp", 8, {}}});
  for (const auto model : {network::ContentionModel::kFlow, network::ContentionModel::kChunk}) {
    network::NetworkSpec net;
    net.fidelity = network::Fidelity::kContention;
    net.contention = model;
    collectives::SequentialExecutor executor;
    NetworkCommModel comm(topo, mesh, net, executor);
    const std::uint64_t S = 32ull << 20;
    // What the work budget asks before the step: tp will be timed by one group, dp not; and
    // not when the first group's lowering is beyond the budget it is given.
    EXPECT_TRUE(comm.timed_by_one_group(CommAxis::kTp, CommOp::kAllReduce, static_cast<double>(S), 0, 1e6));
    EXPECT_FALSE(comm.timed_by_one_group(CommAxis::kDp, CommOp::kAllReduce, static_cast<double>(S), 0, 1e6));
    EXPECT_FALSE(comm.timed_by_one_group(CommAxis::kTp, CommOp::kAllReduce, static_cast<double>(S), 0, 1));
    const CommProfile tp = comm.collective(CommAxis::kTp, CommOp::kAllReduce, static_cast<double>(S), 0, -1);
    EXPECT_EQ(comm.contention_counts().one_group, 1u);
    EXPECT_EQ(tp.alone_ps(), together(topo, mesh, net, "tp", S));
    // Every tp group's load is on the links, not only the one simulated: stage 0 is one x
    // line of 8 chips, 4 pairs; each chip sends its partner 2·(2−1)/2·S = S over one hop.
    double carried = 0;
    for (const auto& l : comm.link_loads()) carried += l.bytes;
    EXPECT_DOUBLE_EQ(carried, 8.0 * static_cast<double>(S));
    const CommProfile dp = comm.collective(CommAxis::kDp, CommOp::kAllReduce, static_cast<double>(S), 0, -1);
    EXPECT_EQ(comm.contention_counts().one_group, 1u);  // interleaved: simulated together
    EXPECT_EQ(dp.alone_ps(), together(topo, mesh, net, "dp", S));
    const auto& c = comm.contention_counts();
    EXPECT_EQ(model == network::ContentionModel::kFlow ? c.flows : c.chunks, 2u);
  }
}

/// A stage's time alone as alone_ps gives it (stage 0's where every group of both stages is an
/// image of stage 0's first) against measuring that stage on a model of its own; returns how
/// many stages alone_ps measured (the others took stage 0's).
std::size_t expect_alone_as_measured(const topology::Topology& topo, const topology::DeviceMesh& mesh,
                                     const char* name) {
  network::NetworkSpec net;  // analytical
  collectives::SequentialExecutor executor;
  NetworkCommModel comm(topo, mesh, net, executor);
  const int stages = mesh.axes()[static_cast<std::size_t>(mesh.axis_index("pp"))].size;
  for (const CommAxis axis : {CommAxis::kTp, CommAxis::kDp}) {
    for (const CommOp op : {CommOp::kAllReduce, CommOp::kAllGather, CommOp::kReduceScatter}) {
      for (const double bytes : {1e6, 3e8}) {
        for (int stage = 0; stage < stages; ++stage) {
          NetworkCommModel fresh(topo, mesh, net, executor);
          EXPECT_EQ(comm.alone_ps(axis, op, bytes, stage), fresh.collective(axis, op, bytes, stage, -1).alone_ps())
              << name << " axis " << int(axis) << " op " << int(op) << " bytes " << bytes << " stage " << stage;
        }
      }
    }
  }
  return comm.simulated();
}

TEST(AnalyticalCommModel, AStageWhoseGroupsAreImagesOfStageZerosTakesItsTimeAlone) {
  using topology::GridSpec;
  const topology::LinkSpec ici{45e9, 1'000'000};
  // A 4x4x8 twisted torus, pp along z: every stage's tp and dp groups are translations of
  // stage 0's. 2 axes × 3 ops × 2 sizes measured once each.
  const topology::Topology twisted(topology::TopologySpec{"t", GridSpec{{4, 4, 8}, {true, true, true}, true, ici}});
  const topology::DeviceMesh along_z(twisted, {{"tp", 4, {"x"}}, {"dp", 4, {"y"}}, {"pp", 8, {"z"}}});
  EXPECT_EQ(expect_alone_as_measured(twisted, along_z, "twisted, pp on z"), 12u);
  // z open: the stages at the ends are not translations of the middle ones for a group along
  // z, and dp 4 on x's outer block interleaves; whatever alone_ps takes, it is what measuring gives.
  const topology::Topology open(topology::TopologySpec{"o", GridSpec{{8, 4, 4}, {true, true, false}, false, ici}});
  const topology::DeviceMesh mixed(open, {{"tp", 2, {"x"}}, {"dp", 4, {"x"}}, {"pp", 16, {}}});
  expect_alone_as_measured(open, mixed, "open z, dp interleaved");
  const topology::DeviceMesh tp_on_z(open, {{"tp", 4, {"z"}}, {"dp", 2, {}}, {"pp", 16, {}}});
  expect_alone_as_measured(open, tp_on_z, "open z, tp on z");
  // Two slices over DCN, dp across them (hierarchical): measured stage by stage.
  const topology::Topology slices(topology::TopologySpec{
      "m", topology::MultisliceSpec{2, GridSpec{{4, 4}, {true, true}, false, ici}, {6.25e9, 10'000'000}}});
  const topology::DeviceMesh across(slices, {{"tp", 4, {"x"}}, {"dp", 4, {}}, {"pp", 2, {}}});
  expect_alone_as_measured(slices, across, "multislice");
  // Six nodes of 2 GPUs, leaves of 3 nodes: stage 0's dp groups are nodes 0, 2, 4 (two in the
  // first leaf), stage 1's nodes 1, 3, 5 (two in the second): not images of each other, so
  // each stage's dp collectives are measured (2 stages × 6), tp's once (6).
  topology::SwitchSpec cluster{6, 2, ici, {12.5e9, 2'000'000}, {}};
  cluster.fabric.nodes_per_leaf = 3;
  const topology::Topology leaves(topology::TopologySpec{"c", cluster});
  const topology::DeviceMesh unlike(leaves, {{"tp", 2, {"gpu"}}, {"pp", 2, {"node"}}, {"dp", 3, {"node"}}});
  EXPECT_EQ(expect_alone_as_measured(leaves, unlike, "leaves of 3 nodes"), 18u);
}

}  // namespace
}  // namespace podsim::runtime
