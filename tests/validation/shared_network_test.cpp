// One network per step: communications in flight at the same time share the links they
// cross (network::LinkSharing over NetworkCommModel's link classes), and the host feeds the
// chips in steady state. Derivations of the expected values are next to each assertion.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>

#include "closed_form_support.hpp"
#include "collectives/collective_timing.hpp"
#include "collectives/schedule_runner.hpp"
#include "config/scenario_config.hpp"
#include "parallelism/program_builder.hpp"
#include "runtime/critical_path.hpp"
#include "runtime/network_comm_model.hpp"
#include "runtime/step_executor.hpp"
#include "runtime/step_simulation.hpp"
#include "topology/device_mesh.hpp"
#include "topology/topology.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;
using parallelism::CommAxis;
using parallelism::CommOp;
using parallelism::Stream;
using parallelism::Task;
using parallelism::TaskKind;

/// A one-stage plan whose compute stream waits for `collectives`, each on its own stream,
/// all starting at time 0.
parallelism::StepPlan concurrent(const std::vector<std::pair<Stream, CommAxis>>& collectives, double bytes) {
  parallelism::StepPlan plan;
  plan.stages.emplace_back();
  auto& p = plan.stages.back();
  std::vector<std::uint32_t> started;
  for (const auto& [stream, axis] : collectives) {
    started.push_back(p.add(closed_form::collective_task(stream, axis, CommOp::kAllReduce, bytes)));
  }
  Task wait;
  wait.kind = TaskKind::kWait;
  wait.axis = CommAxis::kDp;
  p.add(wait, started);
  plan.microbatches = 1;
  return plan;
}

/// Eight chips in a ring (a 1-D torus), 50 GB/s and 1 us per link and direction.
topology::TopologySpec ring8() {
  topology::GridSpec g;
  g.dims = {8};
  g.wraparound = {true};
  g.link = topology::LinkSpec{50e9, 1'000'000};
  return topology::TopologySpec{"ring8", g};
}

class SharedNetwork : public ::testing::TestWithParam<network::Fidelity> {};

TEST_P(SharedNetwork, TwoCollectivesOnTheSameLinksTakeTheSumOfTheirBandwidthTerms) {
  // dp 8 on an 8-chip ring: a gradient all-reduce on the dp-reduce stream and one on the
  // dp-gather stream load every link alike. Alone one takes L + W; on a ring with
  // wraparound podsim picks the bidirectional ring, which sends half of S each way, so
  // W = 2(n−1)/n · (S/2)/B, spread over the whole L + W (its steps wait their latency between
  // chunks): its links are loaded at W / (L + W). Together they ask 2W / (L + W) of each link,
  // more than it has, so both run at (L + W) / 2W of their speed and end at 2W: the links carry
  // both, and each one's latency passes while the other's chunks move.
  const topology::Topology topo(ring8());
  parallelism::ParallelSpec p;
  p.dp = 8;
  const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(p));
  network::NetworkSpec net;
  net.fidelity = GetParam();
  collectives::SequentialExecutor executor;
  runtime::NetworkCommModel comm(topo, mesh, net, executor);
  const double S = 64e6;
  const runtime::CommProfile alone = comm.collective(CommAxis::kDp, CommOp::kAllReduce, S, 0, -1);
  const double W = 2.0 * 7 / 8 * (S / 2) / 50e9 * 1e12;  // ps
  const double T = static_cast<double>(alone.alone_ps());
  EXPECT_GT(T, W);  // 2(n−1) step latencies
  ASSERT_FALSE(alone.uses.empty());
  for (const auto& use : alone.uses) EXPECT_NEAR(use.fraction, W / T, 1e-6);

  runtime::InputPipeline host({}, 1);
  const auto one = runtime::execute_step(concurrent({{Stream::kDpReduce, CommAxis::kDp}}, S), comm, host);
  EXPECT_NEAR(static_cast<double>(one.step_ps), T, 2);
  comm.reset_uses();
  const auto two = runtime::execute_step(
      concurrent({{Stream::kDpReduce, CommAxis::kDp}, {Stream::kDpGather, CommAxis::kDp}}, S), comm, host);
  EXPECT_NEAR(static_cast<double>(two.step_ps), 2 * W, 4);
  // The union of in-flight time, not the sum of the two: never more than the step.
  EXPECT_EQ(two.stages[0].comm_busy_ps[1], two.step_ps);
  // And the links carried both, busy for 2W within a step of 2W: at most 100 %.
  for (const auto& load : comm.link_loads()) {
    EXPECT_NEAR(static_cast<double>(load.busy_ps), 2 * W, 4);
    EXPECT_LE(load.busy_ps, two.step_ps);
  }
}

INSTANTIATE_TEST_SUITE_P(BothNetworks, SharedNetwork,
                         ::testing::Values(network::Fidelity::kAnalytical, network::Fidelity::kContention),
                         [](const auto& p) { return std::string(network::fidelity_name(p.param)); });

/// Two slices of a 4-chip ICI ring (50 GB/s, 1 us) joined by DCN of `dcn_Bps` per chip. Its
/// hierarchical collectives run their parts in turn (collectives.pieces: 1), each a phase:
/// the tests below pin how phases share links. (In pieces, the parts overlap and make one
/// phase: collective_closed_form_test.cpp, HierarchicalClosedForm.)
topology::TopologySpec two_rings(double dcn_Bps, double ici_Bps = 50e9) {
  topology::MultisliceSpec m;
  m.slices = 2;
  m.slice.dims = {4};
  m.slice.wraparound = {true};
  m.slice.link = topology::LinkSpec{ici_Bps, 1'000'000};
  m.dcn = topology::LinkSpec{dcn_Bps, 1'000'000};
  topology::TopologySpec spec{"two-rings", m};
  spec.collectives.hierarchical_pieces = 1;
  return spec;
}

TEST(SharedNetworkPhases, ASlowDcnPhaseAddsToSharedIciLinksInsteadOfHidingUnderThem) {
  // tp 2 on x, dp 4 = x[2 every 2] × slice: the two dp groups of a slice cross the same
  // x links (0→2 and 1→3 both pass 1→2), so together their ICI phase takes longer than
  // one group's. The hierarchical all-gather runs its DCN phase, then its ICI phase: the
  // sharing stretches only the ICI phase, so a slower DCN must cost the step's collective
  // exactly what it costs one group alone. (It once took max(DCN, shared ICI) + min(...):
  // flat over a range of DCN bandwidths.)
  parallelism::ParallelSpec p;
  p.tp = 2;
  p.dp = 4;
  network::NetworkSpec net;
  collectives::SequentialExecutor executor;
  const double S = 256e6;
  std::vector<double> together;
  std::vector<double> alone;
  for (double dcn : {0.5e9, 1e9, 2e9, 4e9, 8e9, 16e9}) {
    const topology::Topology topo(two_rings(dcn));
    const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(p));
    runtime::NetworkCommModel comm(topo, mesh, net, executor);
    together.push_back(static_cast<double>(comm.collective(CommAxis::kDp, CommOp::kAllGather, S, 0, -1).alone_ps()));
    const auto groups = mesh.groups(mesh.axis_index("dp"));
    ASSERT_EQ(groups.size(), 2u);
    const auto one = collectives::time_collective(
        topo, net, {collectives::Op::kAllGather, collectives::Algorithm::kAuto, static_cast<std::uint64_t>(S)}, {groups[0]});
    alone.push_back(one.time_s * 1e12);
    EXPECT_GT(together.back(), alone.back() + 1e6) << "sharing the x links costs something at DCN " << dcn;
  }
  for (std::size_t i = 1; i < together.size(); ++i) {
    EXPECT_LT(together[i], together[i - 1]);
    EXPECT_NEAR(together[i - 1] - together[i], alone[i - 1] - alone[i], 1e-6 * alone[i - 1]) << "DCN step " << i;
  }
}

TEST(SharedNetworkPhases, APipelinedCollectiveOnSharedIciLinksFeelsEveryDcnSpeedOnBothNetworks) {
  // As above, but the hierarchical all-reduce in pieces (collectives.pieces auto): its DCN
  // part overlaps the next piece's ICI part, and the two dp groups of a slice share the x
  // links. Charged as a pipeline (the busier set of links whole, the other's 1/P), the
  // analytical network gives what the contention-aware one gives simulating both groups'
  // flows, within 5 %, and every faster DCN shortens it. (Charged as one phase, the DCN hid
  // under the shared ICI on the analytical network: 0.2-0.6 GB/s gave one step in
  // experiments/10-multislice-dcn, 4 % short of the contention-aware network's.)
  parallelism::ParallelSpec p;
  p.tp = 2;
  p.dp = 4;
  collectives::SequentialExecutor executor;
  const double S = 256e6;
  std::array<std::vector<double>, 2> times;  // analytical, contention-aware
  for (double dcn : {0.5e9, 1e9, 2e9, 4e9, 8e9, 16e9}) {
    topology::TopologySpec spec = two_rings(dcn);
    spec.collectives.hierarchical_pieces = 0;
    const topology::Topology topo(spec);
    const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(p));
    for (int f = 0; f < 2; ++f) {
      network::NetworkSpec net;
      net.fidelity = f == 0 ? network::Fidelity::kAnalytical : network::Fidelity::kContention;
      runtime::NetworkCommModel comm(topo, mesh, net, executor);
      times[f].push_back(static_cast<double>(comm.collective(CommAxis::kDp, CommOp::kAllReduce, S, 0, -1).alone_ps()));
    }
    EXPECT_NEAR(times[0].back(), times[1].back(), 0.05 * times[1].back()) << "DCN " << dcn;
  }
  for (std::size_t i = 1; i < times[0].size(); ++i) {
    EXPECT_LT(times[0][i], times[0][i - 1]) << "analytical, DCN step " << i;
    EXPECT_LT(times[1][i], times[1][i - 1]) << "contention-aware, DCN step " << i;
  }
}

class SharedNetworkPhasesBoth : public ::testing::TestWithParam<network::Fidelity> {};

TEST_P(SharedNetworkPhasesBoth, TwoPhasedCollectivesInStepTakeWhatOneTakesOnHalfTheBandwidth) {
  // Two identical hierarchical all-reduces (in-slice reduce-scatter, DCN all-reduce,
  // in-slice all-gather) started together on the dp-reduce and dp-gather streams are in the
  // same phase at the same time and share every link they use: together they take what one
  // takes alone where every link has half the bandwidth, less the latency one's chunks hide of
  // the other's (bandwidth terms double; each is spread over its whole time, latency
  // included). This holds only if each link class is charged its largest share of any phase
  // (it took 16.0 instead of 21.1 ms when classes were charged their average).
  parallelism::ParallelSpec p;
  p.tp = 2;
  p.dp = 4;
  network::NetworkSpec net;
  net.fidelity = GetParam();
  collectives::SequentialExecutor executor;
  const double S = 64e6;
  const topology::Topology topo(two_rings(4e9));
  const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(p));
  runtime::NetworkCommModel comm(topo, mesh, net, executor);
  runtime::InputPipeline host({}, 1);
  const auto two = runtime::execute_step(
      concurrent({{Stream::kDpReduce, CommAxis::kDp}, {Stream::kDpGather, CommAxis::kDp}}, S), comm, host);

  const topology::Topology half(two_rings(2e9, 25e9));
  const topology::DeviceMesh half_mesh(half, parallelism::mesh_requests(p));
  runtime::NetworkCommModel slower(half, half_mesh, net, executor);
  const SimTime alone_on_half = slower.collective(CommAxis::kDp, CommOp::kAllReduce, S, 0, -1).alone_ps();
  runtime::NetworkCommModel apart(topo, mesh, net, executor);  // (comm counts the collectives it ran)
  const runtime::CommProfile alone = apart.collective(CommAxis::kDp, CommOp::kAllReduce, S, 0, -1);
  const double latency = static_cast<double>(2 * alone.alone_ps() - alone_on_half);  // L = 2(L + W) − (L + 2W)
  EXPECT_GT(latency, 0);
  EXPECT_NEAR(static_cast<double>(two.step_ps), static_cast<double>(alone_on_half) - latency,
              1e-6 * static_cast<double>(alone_on_half));
  // And no link class above 100 %: each link carried at most the step's time.
  for (const auto& load : comm.link_loads()) EXPECT_LE(load.busy_ps, two.step_ps);
}

INSTANTIATE_TEST_SUITE_P(BothNetworks, SharedNetworkPhasesBoth,
                         ::testing::Values(network::Fidelity::kAnalytical, network::Fidelity::kContention),
                         [](const auto& p) { return std::string(network::fidelity_name(p.param)); });

runtime::Scenario example(const std::string& name, const std::vector<std::string>& sets) {
  const fs::path file = fs::path(PODSIM_SOURCE_DIR) / "configs" / "examples" / name;
  return config::load_scenario(file, config::parse_overrides(sets)).scenario;
}

TEST(SharedNetworkSteps, NoLinkIsBusierThanTheStepOnEveryExampleZeroStageAndNetwork) {
  for (const char* name : {"gpt3-175b-tpu-v4-1024.yaml", "zero3-llama3-8b-tpu-v5p.yaml", "dp-tp-llama2-13b-tpu-v5e.yaml",
                           "dp-gpt-1.7b-a100.yaml", "multislice-llama2-7b-tpu-v5e.yaml"}) {
    for (int zero : {0, 1, 2, 3}) {
      for (const char* network : {"analytical", "contention"}) {
        const auto s = example(name, {"parallelism.zero=" + std::to_string(zero), std::string("network.model=") + network});
        const auto r = runtime::simulate_step(s);
        SimTime busiest = 0;
        for (const auto& l : r.links) busiest = std::max(busiest, l.busy_ps);
        EXPECT_LE(busiest, r.execution.step_ps) << name << " zero " << zero << " " << network;
        for (const auto& st : r.execution.stages) {
          for (SimTime busy : st.comm_busy_ps) EXPECT_LE(busy, r.execution.step_ps) << name;
        }
      }
    }
  }
}

TEST(SharedNetworkSteps, ZeroThreeIsSlowerThanZeroOneWhereLinksBind) {
  // GPT-3 175B on 1024 v4 chips: ZeRO-3 gathers every layer's weights per microbatch (1.45 TB
  // per chip per step against 5 GB); with the links shared that traffic cannot be free.
  const auto z1 = runtime::simulate_step(example("gpt3-175b-tpu-v4-1024.yaml", {"parallelism.zero=1"}));
  const auto z3 = runtime::simulate_step(example("gpt3-175b-tpu-v4-1024.yaml", {"parallelism.zero=3"}));
  EXPECT_GT(z3.step_s, 1.1 * z1.step_s);
}

TEST(SteadyStateInput, AHostSlowerThanTheChipsSetsTheStep) {
  // dp-gpt-1.7b-a100: 512 sequences over dp 64 = 8 per replica per step, about 1.7 s of chip
  // time. At 0.5 samples/s the host needs 8 / 0.5 = 16 s per step: in steady state the step is
  // the host's, whatever the prefetch depth; at 5 samples/s (1.6 s) the chips are.
  const auto slow = runtime::simulate_step(example("dp-gpt-1.7b-a100.yaml", {"training.input.samples_per_s=0.5"}));
  EXPECT_NEAR(slow.step_s, 16.0, 1e-9);
  const auto deep = runtime::simulate_step(
      example("dp-gpt-1.7b-a100.yaml", {"training.input.samples_per_s=0.5", "training.input.prefetch=64"}));
  EXPECT_NEAR(deep.step_s, 16.0, 1e-9);
  const auto fast = runtime::simulate_step(example("dp-gpt-1.7b-a100.yaml", {"training.input.samples_per_s=5"}));
  const auto none = runtime::simulate_step(example("dp-gpt-1.7b-a100.yaml", {}));
  EXPECT_EQ(fast.execution.step_ps, none.execution.step_ps);
  // A host 1 % slower than the chips sets the step: 8 samples at 8 / (1.01 · chip step) per s.
  const double rate = 8 / (1.01 * none.step_s);
  const auto edge = runtime::simulate_step(
      example("dp-gpt-1.7b-a100.yaml", {"training.input.samples_per_s=" + std::to_string(rate)}));
  EXPECT_NEAR(edge.step_s, 8 / std::stod(std::to_string(rate)), 1e-9);
}

TEST(CriticalPath, TilesTheStepOnEveryExampleAndNetwork) {
  // The path walks back from the task that ends the step along what each task waited for
  // last: its pieces must follow each other without gap or overlap from 0 to the step's end,
  // so its length is the step time (issue 9: "the critical path's length equals the step").
  for (const char* name : {"gpt3-175b-tpu-v4-1024.yaml", "zero3-llama3-8b-tpu-v5p.yaml", "dp-tp-llama2-13b-tpu-v5e.yaml",
                           "dp-gpt-1.7b-a100.yaml", "multislice-llama2-7b-tpu-v5e.yaml"}) {
    for (const char* network : {"analytical", "contention"}) {
      for (const char* input : {"0", "0.5"}) {
        const auto r = runtime::simulate_step(
            example(name, {std::string("network.model=") + network, std::string("training.input.samples_per_s=") + input}));
        const auto& path = r.execution.critical_path;
        ASSERT_FALSE(path.empty()) << name;
        EXPECT_EQ(path.front().start_ps, 0) << name << " " << network << " " << input;
        EXPECT_EQ(path.back().end_ps, r.execution.step_ps) << name << " " << network << " " << input;
        for (std::size_t i = 1; i < path.size(); ++i) {
          ASSERT_EQ(path[i].start_ps, path[i - 1].end_ps)
              << name << " " << network << " input " << input << ": gap before piece " << i << " ("
              << runtime::category_name(path[i].category) << " " << path[i].operation << ")";
        }
        SimTime sum = 0;
        for (const auto& c : runtime::path_contributors(path)) sum += c.ps;
        EXPECT_EQ(sum, r.execution.step_ps) << name;
      }
    }
  }
}

TEST(CriticalPath, AHostThatSetsTheStepIsItsTopContributor) {
  // 16 s of host time per step against 1.65 s of chip time: the path is mostly the host.
  const auto r = runtime::simulate_step(example("dp-gpt-1.7b-a100.yaml", {"training.input.samples_per_s=0.5"}));
  const auto top = runtime::path_contributors(r.execution.critical_path).front();
  EXPECT_EQ(top.category, runtime::TimeCategory::kInputStall);
  EXPECT_GT(to_seconds(top.ps), 14.0);
}

TEST(CriticalPath, ShorteningAContributorShortensTheStepByWhatThePathSays) {
  // "Shorten this and the step gets shorter by at most x": GPT 1.7B on 64 A100s with the
  // gradient all-reduce after the backward (overlap.dp_reduce: false) has it on the path.
  // Links 300× (NVLink) and 3600× (NICs) faster shrink that contributor to its latency terms;
  // nothing runs beside it, so the step shortens by exactly what the contributor lost.
  auto all_reduce = [](const runtime::StepReport& r) {
    for (const auto& c : runtime::path_contributors(r.execution.critical_path)) {
      if (c.category == runtime::TimeCategory::kCommDp) return c.ps;
    }
    return SimTime{0};
  };
  const auto slow = runtime::simulate_step(example("dp-gpt-1.7b-a100.yaml", {"training.overlap.dp_reduce=false"}));
  const auto fast = runtime::simulate_step(
      example("dp-gpt-1.7b-a100.yaml", {"training.overlap.dp_reduce=false", "topology.intra.bandwidth=90 TB/s",
                                        "topology.scale_out.bandwidth=90 TB/s"}));
  const SimTime shortened = slow.execution.step_ps - fast.execution.step_ps;
  const SimTime predicted = all_reduce(slow) - all_reduce(fast);
  ASSERT_GT(predicted, 0);
  EXPECT_LE(shortened, predicted);       // at most what the contributor lost
  EXPECT_NEAR(static_cast<double>(shortened), static_cast<double>(predicted), 10.0);  // and here all of it (ps)
}

TEST(Timeline, EachStagesComputeStreamTilesTheStepAndSumsToItsBreakdown) {
  // What --trace draws: per stage, the compute stream's intervals follow each other from 0 to
  // the step's end and add up, per category and to the picosecond, to the stage's breakdown.
  for (const char* name : {"gpt3-175b-tpu-v4-1024.yaml", "zero3-llama3-8b-tpu-v5p.yaml", "dp-tp-llama2-13b-tpu-v5e.yaml",
                           "dp-gpt-1.7b-a100.yaml", "multislice-llama2-7b-tpu-v5e.yaml"}) {
    for (const char* network : {"analytical", "contention"}) {
      collectives::SequentialExecutor here;
      const auto r = runtime::simulate_step(example(name, {std::string("network.model=") + network}), here, runtime::Recording::kTimeline);
      const auto& ex = r.execution;
      for (std::uint32_t st = 0; st < ex.stages.size(); ++st) {
        std::vector<runtime::Span> compute;
        for (const auto& s : ex.timeline) {
          if (s.stage == st && s.stream == parallelism::Stream::kCompute) compute.push_back(s);
        }
        std::stable_sort(compute.begin(), compute.end(), [](const auto& a, const auto& b) { return a.start_ps < b.start_ps; });
        ASSERT_FALSE(compute.empty()) << name;
        EXPECT_EQ(compute.front().start_ps, 0) << name << " stage " << st;
        EXPECT_EQ(compute.back().end_ps, ex.step_ps) << name << " stage " << st;
        std::array<SimTime, runtime::kCategories> sums{};
        for (std::size_t i = 0; i < compute.size(); ++i) {
          if (i > 0) {
            ASSERT_EQ(compute[i].start_ps, compute[i - 1].end_ps) << name << " " << network << " stage " << st;
          }
          sums[static_cast<std::size_t>(compute[i].category)] += compute[i].end_ps - compute[i].start_ps;
        }
        for (std::size_t c = 0; c < runtime::kCategories; ++c) {
          EXPECT_EQ(sums[c], ex.stages[st].time_ps[c]) << name << " " << network << " stage " << st << " "
                                                       << runtime::category_name(static_cast<runtime::TimeCategory>(c));
        }
      }
    }
  }
}

}  // namespace
}  // namespace podsim
