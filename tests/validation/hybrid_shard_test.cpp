// Hybrid sharding (parallelism.zero_group; docs/runtime.md §4): ZeRO groups of zero_group
// replicas, replicated across the dp / zero_group groups. What the step program does and what
// crosses the slow tier, in closed form next to each assertion.
#include <gtest/gtest.h>

#include <filesystem>

#include "closed_form_support.hpp"
#include "config/scenario_config.hpp"
#include "output/step_tables.hpp"
#include "parallelism/program_builder.hpp"
#include "runtime/step_simulation.hpp"
#include "topology/device_mesh.hpp"
#include "topology/topology.hpp"
#include "util/error.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;
using parallelism::CommAxis;
using parallelism::CommOp;
using parallelism::Stream;
using parallelism::TaskKind;
using namespace closed_form;  // NOLINT(google-build-using-namespace): the shared fixtures

/// Every data-parallel reduction of stage 0's program: (the reduction, the replicas'
/// all-reduce that waits for it, if any).
struct Reduction {
  const parallelism::Task* reduce = nullptr;
  const parallelism::Task* replicas = nullptr;
};

std::vector<Reduction> reductions(const parallelism::StageProgram& p) {
  std::vector<Reduction> out;
  for (std::uint32_t i = 0; i < p.tasks.size(); ++i) {
    const auto& t = p.tasks[i];
    if (t.kind != TaskKind::kCollective || t.stream != Stream::kDpReduce) continue;
    if (t.axis == CommAxis::kDp) {
      out.push_back({&t, nullptr});
      continue;
    }
    EXPECT_EQ(t.axis, CommAxis::kDpReplica);
    // It waits for exactly the reduction before it.
    EXPECT_EQ(t.deps_end - t.deps_begin, 1u);
    EXPECT_EQ(&p.tasks[p.deps[t.deps_begin]], out.back().reduce);
    EXPECT_EQ(out.back().replicas, nullptr);
    out.back().replicas = &t;
  }
  return out;
}

TEST(HybridShard, ReplicasAllReduceTheShardEachReductionLeaves) {
  // dp 8 in groups of 2: each reduce-scatter of S bytes in a group leaves S/2 on each chip,
  // which the 4 replicas of that shard then all-reduce: S/2 bytes, on the same stream, after it.
  const auto model = uniform_model(4);
  TrainingSpec t;
  t.global_batch = 16;  // two microbatches: ZeRO-3 reduces every microbatch's gradients
  for (int zero : {1, 2, 3}) {
    ParallelSpec par;
    par.dp = 8;
    par.zero = zero;
    par.zero_group = 2;
    const auto plan = parallelism::build_step(model, chip(), par, t);
    const auto all = reductions(plan.stages[0]);
    ASSERT_FALSE(all.empty());
    for (const auto& r : all) {
      EXPECT_EQ(r.reduce->op, CommOp::kReduceScatter) << "ZeRO-" << zero;
      ASSERT_NE(r.replicas, nullptr) << "ZeRO-" << zero;
      EXPECT_EQ(r.replicas->op, CommOp::kAllReduce);
      EXPECT_DOUBLE_EQ(r.replicas->bytes, r.reduce->bytes / 2);
    }
    // Gathers stay inside the group: nothing on the gather stream crosses the replicas.
    for (const auto& task : plan.stages[0].tasks) {
      if (task.stream == Stream::kDpGather) {
        EXPECT_EQ(task.axis, CommAxis::kDp);
      }
    }
    // The optimizer updates the group's shard: the same as dp 2 with one group.
    ParallelSpec group = par;
    group.dp = 2;
    group.zero_group = 0;
    TrainingSpec tg = t;
    tg.global_batch = 4;
    auto optimizer_ps = [](const parallelism::StepPlan& p) {
      for (const auto& task : p.stages[0].tasks) {
        if (task.kind == TaskKind::kCompute && task.category == parallelism::ComputeCategory::kOptimizer) {
          return task.duration_ps;
        }
      }
      return SimTime{-1};
    };
    EXPECT_EQ(optimizer_ps(plan), optimizer_ps(parallelism::build_step(model, chip(), group, tg))) << "ZeRO-" << zero;
  }
  // One group of all of dp is plain ZeRO: no replicas' all-reduce.
  ParallelSpec flat;
  flat.dp = 8;
  flat.zero = 3;
  for (const auto& r : reductions(parallelism::build_step(model, chip(), flat, t).stages[0])) {
    EXPECT_EQ(r.replicas, nullptr);
  }
}

TEST(HybridShard, LayoutsItCannotRunAreRefused) {
  const auto model = uniform_model(4);
  TrainingSpec t;
  t.global_batch = 8;
  ParallelSpec par;
  par.dp = 8;
  par.zero = 3;
  par.zero_group = 3;  // does not divide dp
  EXPECT_THROW(parallelism::check_layout(model, chip(), par, t, 8), parallelism::LayoutError);
  par.zero_group = 4;
  par.zero = 0;  // nothing to shard
  EXPECT_THROW(parallelism::check_layout(model, chip(), par, t, 8), parallelism::LayoutError);
  par.zero = 3;
  t.zero3_collectives = parallelism::Zero3Collectives::kPerTensor;
  EXPECT_THROW(parallelism::check_layout(model, chip(), par, t, 8), parallelism::LayoutError);
  t.zero3_collectives = parallelism::Zero3Collectives::kFlat;
  EXPECT_NO_THROW(parallelism::check_layout(model, chip(), par, t, 8));
}

runtime::Scenario multislice(const std::vector<std::string>& sets) {
  const fs::path file = fs::path(PODSIM_SOURCE_DIR) / "configs" / "examples" / "multislice-llama2-7b-tpu-v5e.yaml";
  return config::load_scenario(file, config::parse_overrides(sets)).scenario;
}

/// Bytes the step sends up the chips' DCN links, over all chips.
double dcn_up_bytes(const runtime::Scenario& s, const runtime::StepReport& r) {
  const topology::Topology topo(s.topology);
  double bytes = 0;
  for (std::size_t l = 0; l < r.links.size(); ++l) {
    const auto& link = topo.links()[l];
    if (link.tier == topology::LinkTier::kDcn && link.src < topo.chips()) bytes += r.links[l].bytes;
  }
  return bytes;
}

TEST(HybridShard, OnlyTheReplicasAllReduceCrossesTheSlices) {
  // Two v5e pods over DCN, dp 128 × tp 4, ZeRO-3 in groups of 64: the mesh puts the replicas'
  // axis (2) on the slices and the groups inside the pods. Over DCN then go only the replicas'
  // all-reduces: between 2 chips a ring all-reduce of S sends S/2 twice, so S per chip, and
  // every one of the 512 chips runs each of them. With one group of 128 the parameter gathers
  // cross the slices too.
  for (const char* network : {"analytical", "contention"}) {
    const auto hybrid = multislice({"parallelism.zero=3", "parallelism.zero_group=64", std::string("network.model=") + network});
    const topology::Topology topo(hybrid.topology);
    const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(hybrid.parallel));
    EXPECT_EQ(mesh.axes()[static_cast<std::size_t>(mesh.axis_index("dp_replica"))].size, 2);
    const auto plan = parallelism::build_step(hybrid.model, hybrid.chip, hybrid.parallel, hybrid.training);
    double replicas = 0;
    for (const auto& task : plan.stages[0].tasks) {
      if (task.axis == CommAxis::kDpReplica) replicas += task.bytes;
    }
    const auto r = runtime::simulate_step(hybrid);
    const double expected = replicas * topo.chips();
    EXPECT_NEAR(dcn_up_bytes(hybrid, r), expected, 1e-6 * expected) << network;
    // The data-parallel bytes a chip reports are its group's gathers and reduce-scatters, (64 −
    // 1)/64 of S each, and the replicas' all-reduces, 2·(2 − 1)/2 of S each.
    double dp_sent = 0;
    for (const auto& task : plan.stages[0].tasks) {
      if (task.axis == CommAxis::kDp) dp_sent += task.bytes * 63.0 / 64.0;
      if (task.axis == CommAxis::kDpReplica) dp_sent += task.bytes;
    }
    const auto& reported = r.execution.stages[0].comm_bytes;
    EXPECT_NEAR(reported[static_cast<std::size_t>(CommAxis::kDp)], dp_sent, 1e-9 * dp_sent) << network;
    EXPECT_EQ(reported[static_cast<std::size_t>(CommAxis::kOther)], 0.0) << network;
    // /summary says over how many replicas the state is sharded.
    EXPECT_EQ(output::summary_table(hybrid, r, {}).ints("zero_group").at(0), 64) << network;

    const auto flat = multislice({"parallelism.zero=3", std::string("network.model=") + network});
    const auto flat_r = runtime::simulate_step(flat);
    EXPECT_GT(dcn_up_bytes(flat, flat_r), 1.4 * expected) << network;
    EXPECT_EQ(output::summary_table(flat, flat_r, {}).ints("zero_group").at(0), flat.parallel.dp) << network;
  }
}

TEST(HybridShard, OnlyHybridShardingGivesTheMeshAReplicaAxis) {
  // The comm models look the replica axis up with find_axis, which says -1 where it is
  // missing; axis_index, for the axes every mesh has, refuses a missing one.
  const auto flat = multislice({"parallelism.zero=3"});
  const topology::Topology topo(flat.topology);
  const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(flat.parallel));
  EXPECT_EQ(mesh.find_axis("dp_replica"), -1);
  EXPECT_THROW((void)mesh.axis_index("dp_replica"), SimulationError);
  EXPECT_EQ(mesh.find_axis("dp"), mesh.axis_index("dp"));
  const auto hybrid = multislice({"parallelism.zero=3", "parallelism.zero_group=64"});
  const topology::DeviceMesh split(topo, parallelism::mesh_requests(hybrid.parallel));
  EXPECT_GE(split.find_axis("dp_replica"), 0);
}

}  // namespace
}  // namespace podsim
