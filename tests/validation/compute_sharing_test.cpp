// Compute beside communication that holds compute units (a GPU's SMs under NCCL's CTAs):
// compute progresses at the share of units left, so the closed forms below hold exactly.
//
// A compute task of W ps beside a collective of T ps (T < W) that holds u of U units takes
//   T · (U − u)/U of its work during the collective, the rest at full rate:
//   end = T + (W − T·(U − u)/U) = W + T·u/U.
// Two collectives of one axis (one NCCL communicator, whose operations run one at a time)
// hold the larger of their units; of two axes, the sum.
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

/// Every communication takes kComm and holds kCtas units (or `units_`).
class HoldingComm final : public runtime::CommModel {
 public:
  explicit HoldingComm(int units) { profile_.latency_ps = kComm, profile_.compute_units = units; }
  const runtime::CommProfile& collective(CommAxis, CommOp, double, int, int) override { return profile_; }
  const runtime::CommProfile& send(int, int, double) override { return profile_; }
  int group_size(CommAxis) const override { return 2; }
  std::size_t resources() const override { return 1; }

 private:
  runtime::CommProfile profile_;
};

Task compute(SimTime ps) {
  Task t;
  t.category = ComputeCategory::kForward;
  t.duration_ps = ps;
  return t;
}

Task collective(Stream stream, CommAxis axis) {
  Task t;
  t.kind = TaskKind::kCollective;
  t.stream = stream;
  t.axis = axis;
  t.op = CommOp::kAllGather;
  t.bytes = 1e6;
  return t;
}

/// One stage: kWork of compute beside the given collectives, all starting at 0.
runtime::ExecutionResult run(std::initializer_list<Task> beside, int chip_units, int ctas = kCtas) {
  parallelism::StepPlan plan;
  plan.compute_units = chip_units;
  plan.stages.emplace_back();
  plan.stages[0].add(compute(kWork));
  for (const Task& t : beside) plan.stages[0].add(t);
  HoldingComm comm(ctas);
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

}  // namespace
}  // namespace podsim::closed_form
