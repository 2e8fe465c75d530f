// Closed forms for collectives on uncontended links (docs/reference/formulas.md §7.2,
// §7.4). α = per-hop link latency, B = per-direction link bandwidth, S = bytes, n = chips.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "collectives/lowering.hpp"
#include "collectives/schedule_runner.hpp"
#include "topology/topology.hpp"

namespace podsim::collectives {
namespace {

constexpr double kB = 45e9;             // bytes/s per direction (TPU v4/v5e ICI, [SB-tpus])
constexpr SimTime kAlphaPs = 1'000'000;  // 1 us per hop ([SB-sharding])
constexpr double kAlpha = 1e-6;
constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;
constexpr std::uint64_t kGiB = 1024 * kMiB;

topology::Topology grid(std::vector<int> dims, std::vector<bool> wrap) {
  return topology::Topology(topology::TopologySpec{
      "t", topology::GridSpec{std::move(dims), std::move(wrap), false, {kB, kAlphaPs}}});
}

double simulate(const topology::Topology& topo, Op op, Algorithm algorithm, std::uint64_t bytes,
                std::vector<int> axes, network::Fidelity fidelity) {
  Schedule schedule;
  lower_collective(topo, CollectiveSpec{op, algorithm, bytes}, make_groups(topo, axes), 0, schedule);
  network::NetworkSpec net;
  net.fidelity = fidelity;
  return to_seconds(run_schedule(topo, net, schedule).finish_ps[0]);
}

const std::vector<network::Fidelity> kBoth{network::Fidelity::kAnalytical,
                                           network::Fidelity::kContention};

/// Largest relative error seen by any test in this file, printed at the end.
double& worst_error() {
  static double worst = 0;
  return worst;
}

void expect_close(double simulated, double expected, const std::string& what) {
  const double error = std::fabs(simulated - expected) / expected;
  worst_error() = std::max(worst_error(), error);
  EXPECT_LT(error, 0.01) << what << ": simulated " << simulated << " s, closed form " << expected
                         << " s";
}

class RingClosedForm : public ::testing::TestWithParam<std::tuple<int, std::uint64_t>> {};

TEST_P(RingClosedForm, AllReduceReduceScatterAllGatherAndBidirectional) {
  const auto [n, S] = GetParam();
  const auto topo = grid({n}, {true});
  const double s = static_cast<double>(S);
  const double nd = n;
  for (auto fidelity : kBoth) {
    const std::string tag = std::string(fidelity == network::Fidelity::kAnalytical ? "analytical" : "contention") +
                            " n=" + std::to_string(n) + " S=" + std::to_string(S);
    // Ring all-reduce = reduce-scatter + all-gather: 2(n−1) steps, each one hop (α) and
    // one chunk of S/n bytes (S/(n·B)): T = 2(n−1)·α + 2(n−1)/n · S/B.
    expect_close(simulate(topo, Op::kAllReduce, Algorithm::kRing, S, {0}, fidelity),
                 2 * (nd - 1) * kAlpha + 2 * (nd - 1) / nd * s / kB, "ring all-reduce " + tag);
    // Reduce-scatter and all-gather are one half each: T = (n−1)·α + (n−1)/n · S/B.
    const double half = (nd - 1) * kAlpha + (nd - 1) / nd * s / kB;
    expect_close(simulate(topo, Op::kReduceScatter, Algorithm::kRing, S, {0}, fidelity), half,
                 "ring reduce-scatter " + tag);
    expect_close(simulate(topo, Op::kAllGather, Algorithm::kRing, S, {0}, fidelity), half,
                 "ring all-gather " + tag);
    // Bidirectional: S/2 each way on disjoint link directions, same number of steps:
    // T = 2(n−1)·α + 2(n−1)/n · (S/2)/B — the bandwidth term halves.
    expect_close(simulate(topo, Op::kAllReduce, Algorithm::kBidirectionalRing, S, {0}, fidelity),
                 2 * (nd - 1) * kAlpha + 2 * (nd - 1) / nd * (s / 2) / kB,
                 "bidirectional all-reduce " + tag);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, RingClosedForm,
                         ::testing::Combine(::testing::Values(4, 8, 16, 64),
                                            ::testing::Values(kKiB, 64 * kKiB, kMiB, 64 * kMiB, kGiB)));

/// Torus all-reduce: one piece of S/D per axis (D axes), each running reduce-scatter
/// phases along all D axes in turn (starting on a different axis), then all-gathers back.
/// On a wrapped axis of n chips a phase sends every shard half the ring each way (the
/// scaling book's ⌈N/2⌉ hops; floor(n/2) steps a direction) on an array of d bytes:
/// floor(n/2)·α + (n−1)/n · d/(2B). The array shrinks by n per phase. With equal axes the
/// pieces use different axes at every phase, so they run side by side:
///   T = 2 · Σ_{p=0}^{D−1} [ floor(n/2)·α + (n−1)/n · (S/D)/n^p / (2B) ].
double torus_all_reduce(int n, int d, double s) {
  double t = 0;
  double array = s / d;
  for (int p = 0; p < d; ++p) {
    t += (n / 2) * kAlpha + (n - 1.0) / n * array / (2 * kB);
    array /= n;
  }
  return 2 * t;
}

TEST(TorusClosedForm, AllReduceOn4x4x4And16x16) {
  for (std::uint64_t S : {kKiB * 3, 3 * kMiB, 768 * kMiB}) {
    for (auto fidelity : kBoth) {
      const auto cube = grid({4, 4, 4}, {true, true, true});
      expect_close(simulate(cube, Op::kAllReduce, Algorithm::kTorus, S, {0, 1, 2}, fidelity),
                   torus_all_reduce(4, 3, static_cast<double>(S)), "4x4x4 S=" + std::to_string(S));
      const auto square = grid({16, 16}, {true, true});
      expect_close(simulate(square, Op::kAllReduce, Algorithm::kTorus, S, {0, 1}, fidelity),
                   torus_all_reduce(16, 2, static_cast<double>(S)), "16x16 S=" + std::to_string(S));
    }
  }
}

TEST(TorusClosedForm, AWrappedAxisTakesHalfTheRingInHops) {
  // The scaling book's Question 3: on a wrapped axis of 4 chips a tiny all-gather is "only 2
  // hops", not the 3 of a one-way ring. Odd axes split evenly: 5 chips, 2 hops a direction of
  // one shard each; 3 chips, one. The bandwidth term stays (n−1)/n · S/(2B).
  for (int n : {3, 4, 5, 8}) {
    const auto ring = grid({n}, {true});
    for (double S : {256.0, 64.0 * kMiB}) {
      for (auto fidelity : kBoth) {
        expect_close(simulate(ring, Op::kAllGather, Algorithm::kTorus, static_cast<std::uint64_t>(S), {0}, fidelity),
                     (n / 2) * kAlpha + (n - 1.0) / n * S / (2 * kB),
                     "wrapped all-gather n=" + std::to_string(n) + " S=" + std::to_string(S));
      }
    }
  }
}

TEST(TorusClosedForm, AnAxisWithoutWraparoundCostsTwiceTheBandwidthTerm) {
  // Open axis of n chips: the folded ring 0,2,…,3,1 sends one way round, S/n per step,
  // and its longest edges span 2 links: reduce-scatter (n−1)·2α + (n−1)/n · S/B, twice the
  // bidirectional ring's bandwidth term (hardware.md: no wrap "typically doubles the time").
  const int n = 4;
  const double S = 64.0 * kMiB;
  const auto open = grid({n, 4}, {false, false});
  const auto wrapped = grid({n, 4}, {true, true});
  for (auto fidelity : kBoth) {
    const double open_rs = simulate(open, Op::kReduceScatter, Algorithm::kTorus, 64 * kMiB, {0}, fidelity);
    expect_close(open_rs, (n - 1) * 2 * kAlpha + (n - 1.0) / n * S / kB, "open reduce-scatter");
    const double wrapped_rs = simulate(wrapped, Op::kReduceScatter, Algorithm::kTorus, 64 * kMiB, {0}, fidelity);
    expect_close(wrapped_rs, (n / 2) * kAlpha + (n - 1.0) / n * S / (2 * kB), "wrapped reduce-scatter");
    EXPECT_NEAR(open_rs / wrapped_rs, 2.0, 0.02);
    // The SB-sharding worked example: all-gather of 34 MB over a 4-chip v5e axis without
    // wrap, predicted 3 × 8.4e6 / 4.5e10 ≈ 560 us (+ latency), measured 680 us.
    const double ag = simulate(open, Op::kAllGather, Algorithm::kTorus, 34'000'000, {0}, fidelity);
    expect_close(ag, 3 * 2 * kAlpha + 0.75 * 34e6 / kB, "34 MB open all-gather");
  }
}

TEST(BroadcastClosedForm, PipelinedChain) {
  // A chain of n chips carrying P pieces of S/P (τ = S/(P·B) each). A chip forwards a piece
  // once it has arrived and its previous piece has left, so the first piece reaches the end
  // after (n−1)·(α + τ) and the others follow τ apart: T = (n−1)·α + (n−2+P)·τ.
  const int n = 8;
  const std::uint64_t S = 16 * kMiB;
  const auto topo = grid({n}, {true});
  const int P = broadcast_pieces(n, S, kB, kAlphaPs);
  for (auto fidelity : kBoth) {
    expect_close(simulate(topo, Op::kBroadcast, Algorithm::kRing, S, {0}, fidelity),
                 (n - 1) * kAlpha + (n - 2 + P) * (static_cast<double>(S) / P / kB), "broadcast");
  }
}

/// Dimension-ordered collectives (docs/collectives.md): dimension i has n_i chips, a
/// per-step latency α_i and link bandwidth B_i; P_i = n_1⋯n_i, P_0 = 1. The phase along
/// dimension i is a one-way ring per line on an array of S/P_{i−1} bytes: (n_i−1) steps of
/// α_i + S/(P_i·B_i). Reduce-scatter runs the phases in order, all-gather in reverse, and
/// all-reduce both (its last dimension's all-reduce is that dimension's two halves):
///   RS = AG = Σ_i [(n_i−1)·α_i + (n_i−1)/n_i · S/(P_{i−1}·B_i)],   AR = 2 × that.
struct Dim {
  int n;
  double alpha;  ///< s per ring step
  double bandwidth;
};

double dimension_ordered(const std::vector<Dim>& dims, double s, double halves) {
  double t = 0;
  double before = 1;  // P_{i−1}
  for (const Dim& d : dims) {
    t += (d.n - 1) * d.alpha + (d.n - 1.0) / d.n * s / (before * d.bandwidth);
    before *= d.n;
  }
  return halves * t;
}

void expect_dimension_ordered(const topology::Topology& topo, const std::vector<int>& axes,
                              const std::vector<Dim>& dims, const std::string& shape) {
  for (std::uint64_t S : {kKiB, kMiB, 64 * kMiB, kGiB}) {
    const double s = static_cast<double>(S);
    for (auto fidelity : kBoth) {
      const std::string tag = shape + " S=" + std::to_string(S) +
                              (fidelity == network::Fidelity::kAnalytical ? " analytical" : " contention");
      expect_close(simulate(topo, Op::kAllReduce, Algorithm::kDimensionOrdered, S, axes, fidelity),
                   dimension_ordered(dims, s, 2), "all-reduce " + tag);
      expect_close(simulate(topo, Op::kReduceScatter, Algorithm::kDimensionOrdered, S, axes, fidelity),
                   dimension_ordered(dims, s, 1), "reduce-scatter " + tag);
      expect_close(simulate(topo, Op::kAllGather, Algorithm::kDimensionOrdered, S, axes, fidelity),
                   dimension_ordered(dims, s, 1), "all-gather " + tag);
    }
  }
}

TEST(DimensionOrderedClosedForm, UnevenTori) {
  // Wrapped axes: a ring step is one hop (α, B). A 2-chip axis has no wrap but its ring of
  // two is direct links both ways, also one hop.
  expect_dimension_ordered(grid({4, 8}, {true, true}), {0, 1}, {{4, kAlpha, kB}, {8, kAlpha, kB}}, "4x8");
  expect_dimension_ordered(grid({8, 4}, {true, true}), {0, 1}, {{8, kAlpha, kB}, {4, kAlpha, kB}}, "8x4");
  expect_dimension_ordered(grid({2, 4, 8}, {false, true, true}), {0, 1, 2},
                           {{2, kAlpha, kB}, {4, kAlpha, kB}, {8, kAlpha, kB}}, "2x4x8");
}

TEST(DimensionOrderedClosedForm, UnequalAxisBandwidthAndLatency) {
  // A GPU cluster of 8 nodes of 4: a ring step along "gpu" crosses GPU -> NVSwitch -> GPU,
  // along "node" GPU -> fabric -> GPU, so α_i is twice the link latency and B_i the link
  // bandwidth of that tier.
  const double nvlink = 300e9;
  const double nic = 25e9;
  const SimTime nvlink_lat = 700'000;   // 0.7 us per link
  const SimTime nic_lat = 2'500'000;    // 2.5 us per link
  const topology::Topology cluster(topology::TopologySpec{
      "cluster", topology::SwitchSpec{8, 4, {nvlink, nvlink_lat}, {nic, nic_lat}}});
  expect_dimension_ordered(cluster, {0, 1},
                           {{4, 2 * to_seconds(nvlink_lat), nvlink}, {8, 2 * to_seconds(nic_lat), nic}}, "4 gpu x 8 node");
  // Three dimensions with three bandwidths: two 4x2 slices (wrapped 4-axis, direct 2-axis)
  // over DCN (chip -> DCN switch -> chip).
  const SimTime dcn_lat = 10'000'000;
  const double dcn = 6.25e9;
  const topology::Topology multislice(topology::TopologySpec{
      "ms", topology::MultisliceSpec{2, topology::GridSpec{{4, 2}, {true, false}, false, {kB, kAlphaPs}}, {dcn, dcn_lat}}});
  expect_dimension_ordered(multislice, {0, 1, 2},
                           {{4, kAlpha, kB}, {2, kAlpha, kB}, {2, 2 * to_seconds(dcn_lat), dcn}}, "4x2 x 2 slices");
}

TEST(DimensionOrderedClosedForm, OnOneAxisItIsTheRing) {
  // With one dimension the phases collapse to the ring: 2(n−1)·α + 2(n−1)/n · S/B.
  const auto line = grid({16}, {true});
  for (auto fidelity : kBoth) {
    const double s = 64.0 * kMiB;
    expect_close(simulate(line, Op::kAllReduce, Algorithm::kDimensionOrdered, 64 * kMiB, {0}, fidelity),
                 simulate(line, Op::kAllReduce, Algorithm::kRing, 64 * kMiB, {0}, fidelity), "one axis vs ring");
    expect_close(simulate(line, Op::kAllReduce, Algorithm::kDimensionOrdered, 64 * kMiB, {0}, fidelity),
                 2 * 15 * kAlpha + 2 * 15.0 / 16 * s / kB, "one axis closed form");
  }
}

/// A hierarchical all-reduce over `m` nodes of `g` GPUs in P pieces (docs/collectives.md,
/// "Hierarchical collectives in pieces"). A piece of s = S/P reduce-scatters on a ring of g
/// through the node's switch in r = (g−1)·(2α_in + s/(g·B_in)), all-reduces its 1/g shard on a
/// ring of m across the nodes in d = 2(m−1)·(2α_out + s/(g·m·B_out)), and gathers back in r.
/// The links inside take every piece's reduce-scatter, then every piece's all-gather, each
/// once the piece's all-reduce is done; the links across take the all-reduces in turn:
///   T = max(2P·r, 2r + P·d, (P+1)·r + d)
/// (the links inside busy throughout; the links across, with a reduce-scatter before and a
/// gather after; the last all-reduce waiting for the scatters). One piece: 2r + d, in turn.
struct TwoTiers {
  int m;
  int g;
  double b_in;
  double alpha_in;  // per link: a hop through a switch is two
  double b_out;
  double alpha_out;

  topology::Topology topology(int pieces) const {
    topology::TopologySpec spec{"nodes", topology::SwitchSpec{m, g, {b_in, static_cast<SimTime>(alpha_in * 1e12)},
                                                              {b_out, static_cast<SimTime>(alpha_out * 1e12)}}};
    spec.collectives.hierarchical_pieces = pieces;
    return topology::Topology(spec);
  }
  double time(double S, int P) const {
    const double s = S / P;
    const double r = (g - 1) * (2 * alpha_in + s / (g * b_in));
    const double d = 2 * (m - 1) * (2 * alpha_out + s / (g * m * b_out));
    return std::max({2 * P * r, 2 * r + P * d, (P + 1) * r + d});
  }
  /// The piece count with the shortest closed-form time (the first of equals).
  int best_pieces(double S) const {
    int best = 1;
    for (int P = 2; P <= kMaxHierarchicalPieces; ++P) best = time(S, P) < time(S, best) ? P : best;
    return best;
  }
};

double simulate_hierarchical(const topology::Topology& topo, std::uint64_t bytes, network::Fidelity fidelity) {
  return simulate(topo, Op::kAllReduce, Algorithm::kHierarchical, bytes, {0, 1}, fidelity);
}

TEST(HierarchicalClosedForm, ScattersAndGathersHideUnderTheAllReducesWhereTheNetworkAcrossBinds) {
  // 8 GPUs a node on 300 GB/s, 4 nodes on 25 GB/s NICs: each piece's all-reduce across is
  // longer than its reduce-scatter inside, so the pieces' scatters and gathers hide under the
  // all-reduces but for the first scatter and the last gather.
  const TwoTiers tiers{4, 8, 300e9, 1e-6, 25e9, 3e-6};
  const std::uint64_t S = 840 * kMiB / 4;  // S/P a whole number of bytes per GPU for P ≤ 8
  const double s = static_cast<double>(S);
  const int P = tiers.best_pieces(s);
  EXPECT_GE(P, 4) << "pieces worth cutting";
  for (auto fidelity : kBoth) {
    const std::string net(network::fidelity_name(fidelity));
    expect_close(simulate_hierarchical(tiers.topology(0), S, fidelity), tiers.time(s, P),
                 net + " in " + std::to_string(P) + " pieces");
    for (int pieces : {1, 2, 8}) {
      expect_close(simulate_hierarchical(tiers.topology(pieces), S, fidelity), tiers.time(s, pieces),
                   net + " in " + std::to_string(pieces) + " set by collectives.pieces");
    }
  }
  // Neither the parts in turn nor the slowest part alone.
  EXPECT_LT(tiers.time(s, P), 0.8 * tiers.time(s, 1));
  EXPECT_GT(tiers.time(s, P), 1.05 * 2 * 3 * (s / 8 / 4 / 25e9));
}

TEST(HierarchicalClosedForm, WhereTheLinksInsideBindTheAllReducesAcrossHideUnderTheGathers) {
  // 50 GB/s inside, 100 GB/s across: every piece's all-reduce finishes before the links
  // inside come to its gather, so the step is the links inside, busy throughout: 2P·r.
  const TwoTiers tiers{4, 8, 50e9, 1e-6, 100e9, 3e-6};
  const std::uint64_t S = 840 * kMiB / 4;
  const double s = static_cast<double>(S);
  const int P = tiers.best_pieces(s);
  ASSERT_GT(P, 1);
  const double r = 7 * (2e-6 + s / P / (8 * 50e9));
  EXPECT_DOUBLE_EQ(tiers.time(s, P), 2 * P * r);
  for (auto fidelity : kBoth) {
    expect_close(simulate_hierarchical(tiers.topology(0), S, fidelity), 2 * P * r,
                 std::string(network::fidelity_name(fidelity)) + " in " + std::to_string(P) + " pieces");
  }
}

TEST(HierarchicalClosedForm, SmallMessagesRunInOnePieceAsBefore) {
  // At 64 KiB every piece's latency costs more than the overlap saves: the parts in turn.
  const TwoTiers tiers{4, 8, 300e9, 1e-6, 25e9, 3e-6};
  const std::uint64_t S = 64 * kKiB;
  EXPECT_EQ(tiers.best_pieces(static_cast<double>(S)), 1);
  for (auto fidelity : kBoth) {
    expect_close(simulate_hierarchical(tiers.topology(0), S, fidelity), tiers.time(static_cast<double>(S), 1),
                 "64 KiB");
  }
}

TEST(HierarchicalPieces, TheCountChosenIsTheFastestSimulatedOnATpuMultislice) {
  // Four 4×4 v5e-like slices (45 GB/s ICI, both axes wrapped) over 3.125 GB/s DCN per chip: the
  // count hierarchical_pieces estimates from the link figures (a torus inside: ⌊n/2⌋ hops an
  // axis, every axis at once) is within 1 % of the fastest of the eight, simulated.
  auto topology = [](int pieces) {
    topology::TopologySpec spec{"ms", topology::MultisliceSpec{4, topology::GridSpec{{4, 4}, {true, true}, false, {kB, kAlphaPs}},
                                                               {3.125e9, 10'000'000}}};
    spec.collectives.hierarchical_pieces = pieces;
    return topology::Topology(spec);
  };
  for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}) {
    for (std::uint64_t S : {256 * kKiB, 16 * kMiB, 256 * kMiB}) {
      double fastest = 1e30;
      for (int pieces = 1; pieces <= kMaxHierarchicalPieces; ++pieces) {
        fastest = std::min(fastest, simulate(topology(pieces), op, Algorithm::kHierarchical, S, {0, 1, 2},
                                             network::Fidelity::kAnalytical));
      }
      const double chosen = simulate(topology(0), op, Algorithm::kHierarchical, S, {0, 1, 2}, network::Fidelity::kAnalytical);
      EXPECT_LE(chosen, 1.01 * fastest) << op_name(op) << " of " << S << " bytes";
    }
  }
}

/// Prints the largest error when the whole binary runs in one process (tools/bench does).
class ReportWorstError : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("largest closed-form relative error: %.4f%%\n", worst_error() * 100);
  }
};
[[maybe_unused]] const auto* const kReport =
    ::testing::AddGlobalTestEnvironment(new ReportWorstError);

}  // namespace
}  // namespace podsim::collectives
