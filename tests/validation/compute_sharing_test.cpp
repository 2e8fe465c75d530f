// Compute beside communication that holds compute units (a GPU's SMs under NCCL's CTAs):
// compute progresses at the share of units left, so the closed forms below hold exactly.
//
// A compute task of W ps beside a collective of T ps (T < W) that holds u of U units takes
//   T · (U − u)/U of its work during the collective, the rest at full rate:
//   end = T + (W − T·(U − u)/U) = W + T·u/U.
// Two collectives of one axis (one NCCL communicator, whose operations run one at a time)
// hold the larger of their units; of two axes, the sum. HBM-bound work is slowed instead by
// the HBM bandwidth communication's traffic takes (never below half of it). A GEMM with a
// persistent grid (one CTA per unit) launched on all U units while u are held runs in
// ⌈U / (U − u)⌉ waves: beside the collective it progresses at 1/⌈U / (U − u)⌉.
#include <gtest/gtest.h>

#include "closed_form_support.hpp"
#include "parallelism/step_program.hpp"

namespace podsim::closed_form {
namespace {

using parallelism::CommAxis;
using parallelism::CommOp;
using parallelism::ComputeCategory;
using parallelism::Stream;
using parallelism::Task;
using parallelism::TaskKind;

constexpr SimTime kUs = 1'000'000;
constexpr SimTime kWork = 100 * kUs;
constexpr SimTime kComm = 40 * kUs;
constexpr int kUnits = 108;  // an A100's SMs
constexpr int kCtas = 27;    // a quarter of them

/// Every communication takes kComm and holds `units` compute units; `on_links`: kComm is its
/// bandwidth part on a link of its own (it moves bytes through HBM), else latency.
class HoldingComm final : public runtime::CommModel {
 public:
  explicit HoldingComm(int units, bool on_links = false) {
    profile_.compute_units = units;
    if (on_links) {
      profile_.bandwidth_ps = kComm;
      profile_.uses = {{0, 1.0}};
    } else {
      profile_.latency_ps = kComm;
    }
  }
  const runtime::CommProfile& collective(CommAxis, CommOp, double, int, int) override { return profile_; }
  const runtime::CommProfile& send(int, int, double) override { return profile_; }
  int group_size(CommAxis) const override { return 2; }
  std::size_t resources() const override { return 1; }

 private:
  runtime::CommProfile profile_;
};

Task compute(SimTime ps, SimTime memory_ps = 0, SimTime gemm_ps = 0) {
  Task t;
  t.category = ComputeCategory::kForward;
  t.duration_ps = ps;
  t.memory_share = parallelism::to_share(memory_ps, ps);
  t.gemm_share = parallelism::to_gemm_share(gemm_ps, ps);
  return t;
}

Task collective(Stream stream, CommAxis axis, double bytes = 1e6) {
  return collective_task(stream, axis, CommOp::kAllGather, bytes);
}

/// One stage: kWork of compute (`memory_ps` of it HBM-bound) beside the given collectives, all
/// starting at 0, on a chip of `chip_units` SMs and `hbm_Bps` of HBM bandwidth.
runtime::ExecutionResult run(std::initializer_list<Task> beside, int chip_units, int ctas = kCtas,
                             SimTime memory_ps = 0, double hbm_Bps = 0, SimTime gemm_ps = 0, bool gemm_waves = false) {
  parallelism::StepPlan plan;
  plan.compute_units = chip_units;
  plan.hbm_Bps = hbm_Bps;
  plan.gemm_waves = gemm_waves;
  plan.stages.emplace_back();
  plan.stages[0].add(compute(kWork, memory_ps, gemm_ps));
  for (const Task& t : beside) plan.stages[0].add(t);
  HoldingComm comm(ctas, hbm_Bps > 0);
  runtime::InputPipeline input(parallelism::InputPipelineSpec{}, 1);
  return runtime::execute_step(plan, comm, input);
}

SimTime forward(const runtime::ExecutionResult& r) {
  return r.stages[0].time_ps[static_cast<std::size_t>(TimeCategory::kForward)];
}

TEST(ComputeSharing, ComputeBesideACollectiveRunsOnTheUnitsItLeaves) {
  const auto r = run({collective(Stream::kDpGather, CommAxis::kDp)}, kUnits);
  // W + T·u/U = 100 + 40·27/108 = 110 µs.
  EXPECT_EQ(r.step_ps, kWork + kComm * kCtas / kUnits);
  EXPECT_EQ(forward(r), r.step_ps);
  EXPECT_EQ(r.stages[0].compute_slowed_ps, kComm * kCtas / kUnits);
}

TEST(ComputeSharing, AChipWhoseCommunicationTakesNoUnitsComputesAtFullRate) {
  // TPUs (ChipSpec::sms 0) and communication that holds no units: nothing changes.
  EXPECT_EQ(run({collective(Stream::kDpGather, CommAxis::kDp)}, 0).step_ps, kWork);
  EXPECT_EQ(run({collective(Stream::kDpGather, CommAxis::kDp)}, kUnits, 0).step_ps, kWork);
  EXPECT_EQ(run({}, kUnits).stages[0].compute_slowed_ps, 0);
}

TEST(ComputeSharing, OneCommunicatorHoldsOneKernelsUnitsTwoHoldTheirSum) {
  // Gather and reduce of the data-parallel axis: NCCL serialises one communicator's kernels,
  // so 27 units are held for 40 µs, as for one collective.
  const auto same = run({collective(Stream::kDpGather, CommAxis::kDp), collective(Stream::kDpReduce, CommAxis::kDp)},
                        kUnits);
  EXPECT_EQ(same.step_ps, kWork + kComm * kCtas / kUnits);
  // A data-parallel and a tensor-parallel collective: 54 units, W + T·54/108 = 120 µs.
  const auto two = run({collective(Stream::kDpGather, CommAxis::kDp), collective(Stream::kTp, CommAxis::kTp)}, kUnits);
  EXPECT_EQ(two.step_ps, kWork + kComm * 2 * kCtas / kUnits);
  EXPECT_EQ(two.stages[0].compute_slowed_ps, kComm * 2 * kCtas / kUnits);
}

TEST(ComputeSharing, CommunicationNeverStopsCompute) {
  // Held units beyond the chip's leave one unit to compute: W + T·(U − 1)/U.
  const auto r = run({collective(Stream::kDpGather, CommAxis::kDp)}, kUnits, 500);
  EXPECT_EQ(r.step_ps, kWork + kComm * (kUnits - 1) / kUnits);
}

// HBM: an all-gather of S on 2 chips sends S/2 from each, which reads S/2 and writes the S/2 it
// receives: S bytes of HBM traffic over its bandwidth part T. On 1 TB/s (1 byte/ps), S = 1e7
// over T = 40 µs draws 0.25 of the bandwidth.
constexpr double kHbm = 1e12;
constexpr double kQuarter = 1e7;

TEST(ComputeSharing, HbmBoundComputeRunsOnTheBandwidthCommunicationLeaves) {
  // All HBM-bound: 40 µs at 0.75 do 30 µs of work: W + T·0.25 = 110 µs, whatever SMs are held.
  const auto r = run({collective(Stream::kDpGather, CommAxis::kDp, kQuarter)}, kUnits, kCtas, kWork, kHbm);
  EXPECT_EQ(r.step_ps, kWork + kComm / 4);
  // Half HBM-bound, no SMs held: rate 1 / (f/0.75 + 1 − f) = 6/7 for f = ½, so W + T/7 (with
  // f as a task stores it, in 1/65535).
  const auto half = run({collective(Stream::kDpGather, CommAxis::kDp, kQuarter)}, 0, 0, kWork / 2, kHbm);
  const double f = parallelism::from_share(parallelism::to_share(kWork / 2, kWork));
  const double rate = 1.0 / (f / 0.75 + (1.0 - f));
  EXPECT_NEAR(static_cast<double>(half.step_ps), static_cast<double>(kWork) + kComm * (1.0 - rate), 1.0);
  EXPECT_NEAR(static_cast<double>(half.step_ps), static_cast<double>(kWork) + kComm / 7.0, 100.0);
  // Compute-bound work does not feel HBM traffic.
  EXPECT_EQ(run({collective(Stream::kDpGather, CommAxis::kDp, kQuarter)}, 0, 0, 0, kHbm).step_ps, kWork);
}

TEST(ComputeSharing, HbmBoundComputeKeepsAtLeastHalfTheBandwidth) {
  // Traffic of 0.75 of the bandwidth would leave 0.25; compute keeps its fair half: W + T/2.
  const auto r = run({collective(Stream::kDpGather, CommAxis::kDp, 3 * kQuarter)}, 0, 0, kWork, kHbm);
  EXPECT_EQ(r.step_ps, kWork + kComm / 2);
}

TEST(ComputeSharing, APersistentGemmOnAllUnitsRunsASecondWaveBesideCommunication) {
  const auto dp = {collective(Stream::kDpGather, CommAxis::kDp)};
  // All GEMM, launched on all 108 units while 27 are held: 81 CTAs run, 27 wait, two waves,
  // so the GEMM does half its work during the collective: W + T/2 = 120 µs.
  const auto waves = run(dp, kUnits, kCtas, 0, 0, kWork, true);
  EXPECT_EQ(waves.step_ps, kWork + kComm / 2);
  EXPECT_EQ(waves.stages[0].compute_slowed_ps, kComm / 2);
  // The same GEMM launched on the units left to it (an SM-count target): W + T·u/U.
  EXPECT_EQ(run(dp, kUnits, kCtas, 0, 0, kWork, false).step_ps, kWork + kComm * kCtas / kUnits);
  // 60 of 108 held: 48 left, ⌈108/48⌉ = 3 waves, W + T·2/3.
  EXPECT_NEAR(static_cast<double>(run(dp, kUnits, 60, 0, 0, kWork, true).step_ps),
              static_cast<double>(kWork) + kComm * 2.0 / 3.0, 1.0);
  // Compute that is not a GEMM (attention, here) keeps the units' share.
  EXPECT_EQ(run(dp, kUnits, kCtas, 0, 0, 0, true).step_ps, kWork + kComm * kCtas / kUnits);
  // Nothing held, nothing lost.
  EXPECT_EQ(run({}, kUnits, kCtas, 0, 0, kWork, true).step_ps, kWork);
}

TEST(ComputeSharing, AMixedRunSlowsEachPartByItsOwnResource) {
  // Half GEMM, half other compute-bound work, 27 of 108 units held: rate
  // 1 / (g/(1/2) + (1 − g)/(81/108)) = 0.6 for g = ½, so W + T·0.4 (with g as a task stores it).
  const auto r = run({collective(Stream::kDpGather, CommAxis::kDp)}, kUnits, kCtas, 0, 0, kWork / 2, true);
  const double g = parallelism::from_gemm_share(parallelism::to_gemm_share(kWork / 2, kWork));
  const double rate = 1.0 / (g / 0.5 + (1.0 - g) / (81.0 / 108.0));
  EXPECT_NEAR(static_cast<double>(r.step_ps), static_cast<double>(kWork) + kComm * (1.0 - rate), 1.0);
  EXPECT_NEAR(static_cast<double>(r.step_ps), static_cast<double>(kWork) + kComm * 0.4, 0.01 * kComm);
}

}  // namespace
}  // namespace podsim::closed_form
