// ZeRO-3 per tensor (DeepSpeed before 0.5.5; parallelism/zero3_collectives.hpp) in closed
// form: which tensors it gathers and reduces, and that every one of those collectives, with
// its list copies, takes its turn on the compute stream.
#include <gtest/gtest.h>

#include <vector>

#include "closed_form_support.hpp"
#include "parallelism/zero3_collectives.hpp"
#include "workload/model_spec.hpp"

namespace podsim {
namespace {

using namespace closed_form;  // NOLINT(google-build-using-namespace): the shared fixtures
using parallelism::CommOp;
using parallelism::PerTensorCalls;
using parallelism::Stream;
using parallelism::TaskKind;

ParallelSpec dp4_zero3() {
  ParallelSpec par;
  par.dp = 4;
  par.zero = 3;
  return par;
}

/// One microbatch per replica (dp 4), ZeRO-3 collectives per tensor.
TrainingSpec one_microbatch_per_tensor() {
  TrainingSpec t;
  t.global_batch = 4;
  t.zero3_collectives = parallelism::Zero3Collectives::kPerTensor;
  return t;
}

TEST(Zero3PerTensor, SmallTensorsPersistAndNearReuseKeepsTheGather) {
  // Tensors under 10^5 elements are never gathered, but every gradient is reduced.
  const std::vector<double> tensors{5e4, 6e8, 2e8, 3e8};
  const PerTensorCalls far = parallelism::per_tensor_calls(tensors, false, false);
  EXPECT_EQ(far.forward, (std::vector<double>{6e8, 2e8, 3e8}));
  EXPECT_TRUE(far.recompute.empty());
  EXPECT_EQ(far.backward, (std::vector<double>{3e8, 2e8, 6e8}));  // reverse order, all again
  EXPECT_EQ(far.reduce, (std::vector<double>{3e8, 2e8, 6e8, 5e4}));
  // Recomputed: between a tensor's recompute and its backward lie the later tensors' recompute
  // and backward: 2 × (2e8 + 3e8) = 10^9 for the first, not under the 10^9 reuse distance, so
  // only it is gathered again; 2 × 3e8 and 0 are.
  const PerTensorCalls near = parallelism::per_tensor_calls(tensors, true, true);
  EXPECT_EQ(near.forward, (std::vector<double>{6e8, 2e8, 3e8}));
  EXPECT_EQ(near.recompute, (std::vector<double>{6e8, 2e8, 3e8}));
  EXPECT_EQ(near.backward, (std::vector<double>{6e8}));
  EXPECT_EQ(near.reduce.size(), 4u);
}

TEST(Zero3PerTensor, ListCopiesCostAnOperationPerShardAndTheBufferThroughHbm) {
  hardware::ChipSpec c = chip();
  c.efficiency.op_overhead_ps = 10'000'000;  // 10 us
  // 64 copies of 10 us, and 1 GB read and written at 1200 GB/s × 0.85; each copy's time is
  // rounded to the picosecond on its own, so the sum may differ by up to 64 ps.
  const SimTime expected = 64 * SimTime{10'000'000} + transfer_time_ps(2e9, 1200e9 * 0.85);
  EXPECT_NEAR(static_cast<double>(parallelism::list_copies_ps(64, 1e9, c)), static_cast<double>(expected), 64.0);
}

TEST(Zero3PerTensor, EveryCollectiveAndItsCopiesTakeTheirTurnWithCompute) {
  // uniform_model: RMSNorm, no biases — per layer two 4096-element norms (kept whole) and four
  // matrices. One microbatch, no recompute: each matrix is gathered before the forward and
  // again before the backward; all six tensors are reduced. The embedding (64 × 4096) is
  // gathered twice and reduced; the head holds only the final norm (reduced).
  const auto model = uniform_model(4);
  hardware::ChipSpec c = chip();
  c.efficiency.op_overhead_ps = 10'000'000;
  const ParallelSpec par = dp4_zero3();
  TrainingSpec t = one_microbatch_per_tensor();
  ClosedFormComm comm(1'000'000, 100e9);
  const auto plan = parallelism::build_step(model, c, par, t);
  std::size_t calls = 0;
  SimTime compute_sum = 0, comm_sum = 0;
  for (const auto& task : plan.stages[0].tasks) {
    if (task.kind == TaskKind::kCompute) compute_sum += task.duration_ps;
    if (task.kind != TaskKind::kCollective) continue;
    ++calls;
    EXPECT_EQ(task.stream, Stream::kCompute);
    EXPECT_EQ(task.duration_ps, parallelism::list_copies_ps(4, task.bytes, c));
    comm_sum += comm.cost(task.bytes) + task.duration_ps;
  }
  EXPECT_EQ(calls, 4u * (4 + 4 + 6) + 3 + 1);
  const auto r = runtime::execute_step(plan, comm, t.input, t.micro_batch);
  expect_exact_partition(r);
  // Nothing runs beside anything: the step is the sum of its parts.
  EXPECT_EQ(r.step_ps, compute_sum + comm_sum);
  EXPECT_EQ(category(r.stages[0], TimeCategory::kCommDp), comm_sum);
  // The same layout gathering flat buffers beside the compute is faster.
  t.zero3_collectives = parallelism::Zero3Collectives::kFlat;
  const auto flat = runtime::execute_step(parallelism::build_step(model, c, par, t), comm, t.input, t.micro_batch);
  EXPECT_LT(flat.step_ps, r.step_ps);
}

TEST(Zero3PerTensor, OnlyARecomputeThatReRunsLinearLayersGathersAgain) {
  // Selective recompute re-runs the attention core, which holds no weights: the same calls as
  // without recompute. Full recompute gathers the four matrices again before re-running them;
  // this layer's matrices (under 10^8 elements each, 2 × their sum under 10^9) then stay for
  // the backward.
  const auto model = uniform_model(4);
  const ParallelSpec par = dp4_zero3();
  TrainingSpec t = one_microbatch_per_tensor();
  const auto calls = [&](parallelism::Recompute r) {
    t.recompute = r;
    std::size_t n = 0;
    const auto plan = parallelism::build_step(model, chip(), par, t);
    for (const auto& task : plan.stages[0].tasks) {
      n += task.kind == TaskKind::kCollective ? 1 : 0;
    }
    return n;
  };
  EXPECT_EQ(calls(parallelism::Recompute::kSelective), 4u * (4 + 4 + 6) + 3 + 1);
  EXPECT_EQ(calls(parallelism::Recompute::kFull), 4u * (4 + 4 + 6) + 3 + 1);
  // Gathered before the forward and the recompute, not the backward: all four in the first
  // two passes, none in the third.
  t.recompute = parallelism::Recompute::kFull;
  std::size_t in_recompute = 0;
  const auto plan = parallelism::build_step(model, chip(), par, t);
  for (const auto& task : plan.stages[0].tasks) {
    in_recompute += task.kind == TaskKind::kCollective && task.category == parallelism::ComputeCategory::kRecompute;
  }
  EXPECT_EQ(in_recompute, 4u * 4);
}

}  // namespace
}  // namespace podsim
