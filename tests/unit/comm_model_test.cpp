// The step's communication as measured on the contention-aware network
// (runtime/network_comm_model.hpp): a collective run by every group of an axis at once.
#include <gtest/gtest.h>

#include "collectives/collective_timing.hpp"
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

}  // namespace
}  // namespace podsim::runtime
