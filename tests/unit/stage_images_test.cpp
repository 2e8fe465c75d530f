// A communication that is another on other chips and links takes that one's measurement,
// renamed (runtime/schedule_image.hpp, NetworkCommModel): the renaming is refused wherever the
// two would not run alike, and where it is taken it gives, bit for bit, what simulating gives.
#include <gtest/gtest.h>

#include <bit>
#include <filesystem>
#include <unordered_map>

#include "collectives/schedule.hpp"
#include "config/scenario_config.hpp"
#include "parallelism/program_builder.hpp"
#include "runtime/network_comm_model.hpp"
#include "runtime/schedule_image.hpp"
#include "topology/device_mesh.hpp"

namespace podsim::runtime {
namespace {

using topology::ChipId;

/// An 8 × 4 torus (both axes wrap).
topology::Topology torus() {
  return topology::Topology(topology::TopologySpec{
      "t", topology::GridSpec{{8, 4}, {true, true}, false, {45e9, 1'000'000}}});
}

/// A reduce-scatter ring over `chips`.
collectives::Schedule ring(const topology::Topology& topo, const std::vector<ChipId>& chips, std::uint64_t bytes) {
  collectives::Schedule s;
  const collectives::Frontier start(topo.vertices());
  collectives::Frontier end(topo.vertices());
  collectives::ring_pass(s, chips, static_cast<int>(chips.size()) - 1, bytes, start, end);
  return s;
}

/// The chips of rows `ys` of the torus, row after row.
std::vector<ChipId> rows(const topology::Topology& topo, std::initializer_list<int> ys) {
  std::vector<ChipId> out;
  for (const int y : ys) {
    for (int x = 0; x < 8; ++x) out.push_back(topo.chip_at({x, y}));
  }
  return out;
}

/// Routes as the network takes them, each walked once.
struct Routes {
  explicit Routes(const topology::Topology& t) : topo(t) {}
  const std::vector<topology::LinkId>& operator()(std::uint64_t hop) {
    auto it = cache.find(hop);
    if (it == cache.end()) {
      it = cache.emplace(hop, topo.route(static_cast<ChipId>(hop >> 32), static_cast<ChipId>(hop & 0xFFFF'FFFFu))).first;
    }
    return it->second;
  }
  const topology::Topology& topo;
  std::unordered_map<std::uint64_t, std::vector<topology::LinkId>> cache;
};

TEST(ScheduleImage, ARingMovedAlongATorusIsItsImageLinkByLink) {
  const topology::Topology topo = torus();
  Routes routes(topo);
  const auto image = schedule_image(topo, ring(topo, rows(topo, {1}), 1 << 20), ring(topo, rows(topo, {2}), 1 << 20),
                                    [&](std::uint64_t hop) -> const auto& { return routes(hop); });
  ASSERT_TRUE(image.has_value());
  ASSERT_EQ(image->size(), 8u);  // the row's eight x+ links
  for (const auto& [from, to] : *image) {
    const auto a = topo.coord(topo.link(from).src);
    const auto b = topo.coord(topo.link(to).src);
    EXPECT_EQ(a[0], b[0]);
    EXPECT_EQ(a[1] + 1, b[1]);
    EXPECT_EQ(topo.link(from).axis, topo.link(to).axis);
    EXPECT_EQ(topo.link(from).dir, topo.link(to).dir);
  }
  EXPECT_EQ(renamed_link(*image, image->front().first), image->front().second);
  EXPECT_FALSE(renamed_link(*image, image->front().second).has_value());  // row 2's links are not row 1's
}

TEST(ScheduleImage, IsRefusedWhereTheTwoWouldNotRunAlike) {
  const topology::Topology topo = torus();
  Routes routes(topo);
  const RouteOf route = [&](std::uint64_t hop) -> const std::vector<topology::LinkId>& { return routes(hop); };
  const auto row1 = ring(topo, rows(topo, {1}), 1 << 20);
  // Other sizes.
  EXPECT_FALSE(schedule_image(topo, row1, ring(topo, rows(topo, {2}), 1 << 19), route));
  // Four chips along x (an open line of the 8-ring: the closing hop goes back 3 links) and
  // four along y (a ring of its own: 1 link).
  std::vector<ChipId> column;
  for (int y = 0; y < 4; ++y) column.push_back(topo.chip_at({0, y}));
  const std::vector<ChipId> row0 = rows(topo, {0});
  const std::vector<ChipId> line(row0.begin(), row0.begin() + 4);
  EXPECT_FALSE(schedule_image(topo, ring(topo, line, 1 << 20), ring(topo, column, 1 << 20), route));
  // Rows 1 and 2 moved by two are rows 3 and 0: the same routes, alike, but the chips' order
  // turns over at the wrap, and with it the order events tied in time are taken in.
  EXPECT_TRUE(schedule_image(topo, ring(topo, rows(topo, {0, 1}), 1 << 20), ring(topo, rows(topo, {2, 3}), 1 << 20),
                             route));
  EXPECT_FALSE(schedule_image(topo, ring(topo, rows(topo, {1, 2}), 1 << 20), ring(topo, rows(topo, {3, 0}), 1 << 20),
                              route));
}

/// A shipped scenario on the contention-aware network.
Scenario contention_scenario(const char* file, network::ContentionModel model) {
  Scenario s = config::load_scenario(std::filesystem::path(PODSIM_SOURCE_DIR) / "configs" / "examples" / file).scenario;
  s.network.fidelity = network::Fidelity::kContention;
  s.network.contention = model;
  return s;
}

void expect_same(const CommProfile& a, const CommProfile& b, const std::string& what) {
  EXPECT_EQ(a.latency_ps, b.latency_ps) << what;
  EXPECT_EQ(a.bandwidth_ps, b.bandwidth_ps) << what;
  EXPECT_EQ(a.compute_units, b.compute_units) << what;
  ASSERT_EQ(a.uses.size(), b.uses.size()) << what;
  for (std::size_t i = 0; i < a.uses.size(); ++i) {
    EXPECT_EQ(a.uses[i].resource, b.uses[i].resource) << what;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a.uses[i].fraction), std::bit_cast<std::uint64_t>(b.uses[i].fraction)) << what;
  }
}

TEST(StageImages, EveryCommunicationOfAStepMeasuresAsSimulatingIt) {
  // Pipelines on a twisted torus (GPT-3, pp 16 along z) and on a GPU cluster (GPT 145.6B,
  // pp 8 over nodes): each stage's collectives are another stage's on other chips.
  const std::pair<const char*, network::ContentionModel> cases[] = {
      {"gpt3-175b-tpu-v4-1024.yaml", network::ContentionModel::kFlow},
      {"gpt3-175b-tpu-v4-1024.yaml", network::ContentionModel::kChunk},
      {"dp-tp-pp-gpt-145.6b-a100.yaml", network::ContentionModel::kAuto}};
  for (const auto& [file, model] : cases) {
    SCOPED_TRACE(file);
    const Scenario s = contention_scenario(file, model);
    const auto& eff = s.chip.efficiency;
    const topology::Topology topo(topology::with_link_efficiency(s.topology, eff.ici, eff.dcn));
    const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(s.parallel));
    const parallelism::StepPlan plan =
        parallelism::build_step(s.model, s.chip, s.parallel, s.training, parallelism::ComputeRuns::kFused, 0);
    collectives::SequentialExecutor executor;
    NetworkCommModel simulated(topo, mesh, s.network, executor);
    simulated.measure_stage_images(false);
    NetworkCommModel prefetched(topo, mesh, s.network, executor);
    NetworkCommModel asked(topo, mesh, s.network, executor);  // as the step asks, without prefetch
    simulated.prefetch(plan);
    prefetched.prefetch(plan);
    for (const auto& program : plan.stages) {
      for (const auto& t : program.tasks) {
        const std::string what = "stage " + std::to_string(program.stage) + " axis " +
                                 std::to_string(static_cast<int>(t.axis)) + " bytes " + std::to_string(t.bytes);
        if (t.kind == parallelism::TaskKind::kCollective) {
          const CommProfile& a = simulated.collective(t.axis, t.op, t.bytes, program.stage, t.peer);
          expect_same(a, prefetched.collective(t.axis, t.op, t.bytes, program.stage, t.peer), what);
          expect_same(a, asked.collective(t.axis, t.op, t.bytes, program.stage, t.peer), what);
        } else if (t.kind == parallelism::TaskKind::kSend) {
          const CommProfile& a = simulated.send(program.stage, t.peer, t.bytes);
          expect_same(a, prefetched.send(program.stage, t.peer, t.bytes), what);
          expect_same(a, asked.send(program.stage, t.peer, t.bytes), what);
        }
      }
    }
    EXPECT_EQ(simulated.contention_counts().renamed, 0u);
    EXPECT_GE(prefetched.contention_counts().renamed, simulated.simulated() / 3);  // 86 of 97, 14 of 35
    EXPECT_EQ(asked.contention_counts().renamed, prefetched.contention_counts().renamed);
    const auto expected = simulated.link_loads();
    for (const NetworkCommModel* comm : {&prefetched, &asked}) {
      const auto loads = comm->link_loads();
      ASSERT_EQ(loads.size(), expected.size());
      for (std::size_t l = 0; l < loads.size(); ++l) {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(loads[l].bytes), std::bit_cast<std::uint64_t>(expected[l].bytes)) << l;
        EXPECT_EQ(loads[l].busy_ps, expected[l].busy_ps) << l;
      }
    }
  }
}

}  // namespace
}  // namespace podsim::runtime
