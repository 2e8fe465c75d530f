// Overlap options (docs/runtime.md §4, "Overlap") in closed form: what each hides, derived
// next to the assertions, checked against the simulated step.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "closed_form_support.hpp"
#include "memory/memory_model.hpp"
#include "parallelism/layer_segments.hpp"
#include "parallelism/overlap.hpp"
#include "runtime/input_pipeline.hpp"
#include "workload/layer_ops.hpp"

namespace podsim {
namespace {

using parallelism::Partner;
using parallelism::Segment;
using parallelism::TpOverlap;
using namespace closed_form;  // NOLINT(google-build-using-namespace): the shared fixtures

/// Time collective matmul saves on one pass over `segments` when every tensor-parallel
/// collective takes `t`: an all-gather before a matmul of M costs max((k−1)·M/k, T) + M/k
/// instead of T + M, so it saves min(T, (k−1)·M/k); a reduce-scatter after one the same. The
/// builder cuts M into k − 1 slices of ⌊M/k⌋ and a last one holding the remainder, so the
/// all-gather overlaps (k−1)·⌊M/k⌋ and the reduce-scatter M − ⌊M/k⌋.
SimTime saved_per_pass(const std::vector<Segment>& segments, int k, SimTime t) {
  SimTime saved = 0;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (!segments[i].collective || segments[i].partner == Partner::kNone) continue;
    const bool gather = segments[i].partner == Partner::kNext;
    const SimTime m = segments[gather ? i + 1 : i - 1].duration_ps;
    saved += std::min(t, gather ? m / k * (k - 1) : m - m / k);
  }
  return saved;
}

struct TpCase {
  workload::ModelSpec model = uniform_model(4);
  ParallelSpec par;
  TrainingSpec train;
  TpCase() {
    par.tp = 4;
    par.sequence_parallel = true;  // all-gather / reduce-scatter pairs, each costing T here
    train.global_batch = 3;        // three microbatches
  }
  /// Savings of one step: every layer's forward and backward, every microbatch.
  SimTime expected_saving(SimTime t) const {
    const auto slicing = parallelism::slicing_of(par, train);
    const auto layer = workload::transformer_layer(model, slicing);
    const auto& prec = train.precision;
    const SimTime per_layer =
        saved_per_pass(parallelism::time_segments(layer.forward, chip(), prec, TpOverlap::kCollectiveMatmul), par.tp, t) +
        saved_per_pass(parallelism::time_segments(layer.backward, chip(), prec, TpOverlap::kCollectiveMatmul), par.tp, t);
    return per_layer * model.layers * train.global_batch;
  }
};

TEST(CollectiveMatmul, HidesTheSmallerOfTheCollectiveAndTheMatmulSlices) {
  for (const double bandwidth : {1e13, 5e9}) {  // T below every matmul's slices; T above them
    ClosedFormComm comm(2'000'000, bandwidth);
    TpCase c;
    c.train.overlap.tp = TpOverlap::kNone;
    const auto blocking = run(c.model, c.par, c.train, comm);
    c.train.overlap.tp = TpOverlap::kCollectiveMatmul;
    const auto overlapped = run(c.model, c.par, c.train, comm);
    expect_exact_partition(overlapped);
    const SimTime t = comm.cost(2048.0 * 4096 * 2);  // b·s·h in bf16: every TP collective's buffer
    const SimTime saved = c.expected_saving(t);
    ASSERT_GT(saved, 0);
    EXPECT_EQ(blocking.step_ps - overlapped.step_ps, saved) << "bandwidth " << bandwidth;
    // What it hides was tensor-parallel communication, and nothing else moved.
    const auto& a = blocking.stages[0];
    const auto& b = overlapped.stages[0];
    EXPECT_EQ(category(a, TimeCategory::kCommTp) - category(b, TimeCategory::kCommTp), saved);
    EXPECT_EQ(compute(a), compute(b));
    EXPECT_DOUBLE_EQ(a.flops, b.flops);
  }
}

TEST(CollectiveMatmul, LeavesAnAllReducesGatherHalfExposed) {
  // Without sequence parallelism each all-reduce after a matmul becomes a reduce-scatter
  // overlapped with it, then an all-gather on the compute stream. Every collective costs T
  // in this closed form whatever its op, so each such all-reduce saves min(T, M − ⌊M/k⌋) − T
  // (negative here: the closed form charges each half what the whole costs; on a network an
  // all-reduce costs its reduce-scatter plus its all-gather, and splitting it never loses).
  for (const double bandwidth : {1e13, 5e9}) {
    ClosedFormComm comm(2'000'000, bandwidth);
    TpCase c;
    c.par.sequence_parallel = false;
    c.train.overlap.tp = TpOverlap::kNone;
    const auto blocking = run(c.model, c.par, c.train, comm);
    c.train.overlap.tp = TpOverlap::kCollectiveMatmul;
    const auto overlapped = run(c.model, c.par, c.train, comm);
    expect_exact_partition(overlapped);
    const SimTime t = comm.cost(2048.0 * 4096 * 2);
    const auto layer = workload::transformer_layer(c.model, parallelism::slicing_of(c.par, c.train));
    SimTime all_reduces = 0;
    for (const auto* items : {&layer.forward, &layer.backward}) {
      for (const auto& s : parallelism::time_segments(*items, chip(), c.train.precision, TpOverlap::kCollectiveMatmul)) {
        all_reduces += s.collective && s.partner == Partner::kPrevious ? 1 : 0;
      }
    }
    ASSERT_EQ(all_reduces, 4);  // two in the forward, two in the backward
    const SimTime expected = c.expected_saving(t) - all_reduces * t * c.model.layers * c.train.global_batch;
    EXPECT_EQ(blocking.step_ps - overlapped.step_ps, expected) << "bandwidth " << bandwidth;
    EXPECT_EQ(compute(blocking.stages[0]), compute(overlapped.stages[0]));
  }
}

TEST(CollectiveMatmul, IsTheDefaultOnXlaAndNotOnMegatron) {
  const auto xla = parallelism::default_overlap(workload::Stack::kMaxText);
  EXPECT_EQ(xla.tp, TpOverlap::kCollectiveMatmul);
  EXPECT_EQ(parallelism::default_overlap(workload::Stack::kMegatronLm).tp, TpOverlap::kNone);
  EXPECT_FALSE(xla.param_gather);
  EXPECT_EQ(xla.fsdp_prefetch, 1);
  // One reduce-scatter outstanding under XLA and FSDP2; none waited for under FSDP1.
  EXPECT_EQ(xla.fsdp_reduce_limit, 1);
  EXPECT_EQ(parallelism::default_overlap(workload::Stack::kTorchtitan).fsdp_reduce_limit, 1);
  EXPECT_EQ(parallelism::default_overlap(workload::Stack::kPytorchFsdp).fsdp_reduce_limit, 0);
}

TEST(ParamGatherOverlap, HidesTheZero1GatherBehindTheNextForward) {
  // ZeRO-1 ends the step with an all-gather of the stage's weights, T(P). Overlapped, the
  // gathers run from the step's start, one per layer in the order the forward needs them: the
  // embedding waits for its own, T(P_e); the first layer for the rest of its gather after the
  // embedding's forward E, max(0, T(P_l) − E); every later gather is shorter than the layer
  // computing meanwhile, so hidden. The step shrinks by T(P) − T(P_e) − max(0, T(P_l) − E).
  // α = 0: T is linear in bytes (to a picosecond per transfer).
  ClosedFormComm comm(0, 200e9);
  const auto model = uniform_model(4);
  ParallelSpec par;
  par.dp = 2;
  par.zero = 1;
  TrainingSpec t;
  t.global_batch = 2 * 2;
  const auto at_end = run(model, par, t, comm);
  t.overlap.param_gather = true;
  const auto early = run(model, par, t, comm);
  expect_exact_partition(early);

  const double bytes = 2;  // bf16 comm
  const auto count = workload::count_params(model);
  const SimTime all = comm.cost(parallelism::stage_param_count(model, par, 0) * bytes);
  const SimTime embedding = comm.cost((count.embedding + count.position) * bytes);
  const SimTime layer = comm.cost(count.per_layer * bytes);
  const auto slicing = parallelism::slicing_of(par, t);
  SimTime e = 0, f = 0;
  for (const auto& s : parallelism::time_segments(workload::edge_layers(model, slicing).embedding_forward, chip(),
                                                  t.precision)) {
    e += s.duration_ps;
  }
  for (const auto& s : parallelism::time_segments(workload::transformer_layer(model, slicing).forward, chip(),
                                                  t.precision)) {
    f += s.duration_ps;
  }
  ASSERT_LT(layer, f);  // the premise: a layer's gather hides behind a layer's forward
  const SimTime expected = all - embedding - std::max<SimTime>(0, layer - e);
  EXPECT_NEAR(double(at_end.step_ps - early.step_ps), double(expected), 8.0);
  EXPECT_LT(category(early.stages[0], TimeCategory::kCommDp), category(at_end.stages[0], TimeCategory::kCommDp));
}

/// dp-way ZeRO-3 and nothing else.
ParallelSpec zero3(int dp) {
  ParallelSpec p;
  p.dp = dp;
  p.zero = 3;
  return p;
}

TEST(FsdpPrefetch, ZeroExposesEveryGatherAndDeeperPrefetchHoldsMoreLayers) {
  // Prefetch 0: a layer's gather starts when the layer before has finished, and the layer
  // waits for all of it, so every gather is exposed: comm.dp ≥ the sum of the gathers.
  ClosedFormComm comm(1'000'000, 100e9);
  const auto model = uniform_model(6);
  const ParallelSpec par = zero3(4);
  TrainingSpec t;
  t.global_batch = 4;  // one microbatch
  t.overlap.fsdp_prefetch = 0;
  const auto none = run(model, par, t, comm);
  const auto plan = parallelism::build_step(model, chip(), par, t);
  SimTime gathers = 0;
  for (const auto& task : plan.stages[0].tasks) {
    if (task.stream == parallelism::Stream::kDpGather) gathers += comm.cost(task.bytes);
  }
  EXPECT_GE(category(none.stages[0], TimeCategory::kCommDp), gathers);
  t.overlap.fsdp_prefetch = 1;
  const auto one = run(model, par, t, comm);
  EXPECT_LT(one.step_ps, none.step_ps);
  expect_exact_partition(one);
  // Memory: the layer computing and `prefetch` more, each a layer's bf16 parameters (÷ tp).
  const double layer_bytes = workload::count_params(model).per_layer * 2;
  const auto mem_one = memory::stage_memory(model, chip(), par, t);
  t.overlap.fsdp_prefetch = 3;
  const auto mem_three = memory::stage_memory(model, chip(), par, t);
  EXPECT_DOUBLE_EQ(mem_three[0].temporary - mem_one[0].temporary, 2 * layer_bytes);
}

TEST(FsdpReduceLimit, TheComputeWaitsForTheReduceScatterThatManyBack) {
  // ZeRO-3 whose reduce-scatters take far longer than a layer's backward (fp32 reductions on a
  // slow network, no link sharing). With no limit they queue behind the compute, which runs
  // the backward straight through and waits for the queue at the step's end (PyTorch FSDP1).
  // With a limit of n (XLA's reduce_scatter_overlap_limit, FSDP2: 1), the compute waits for
  // reduce-scatter j − n before it issues reduce-scatter j: nothing computed after j's issue
  // starts before j − n has finished, so the queue never holds more than n + 1.
  ClosedFormComm comm(1'000'000, 20e9);
  const auto model = uniform_model(6);
  const ParallelSpec par = zero3(4);
  TrainingSpec t;
  t.global_batch = 8;  // two microbatches: the limit holds across them
  t.precision.reduce = hardware::DType::kFp32;
  // Compute tasks issued after reduce-scatter j (program order) that start before reduce-scatter
  // j − n ends, with the limit set to `limit`; and the step, which must still add up.
  auto runs_ahead = [&](int limit, int n) {
    t.overlap.fsdp_reduce_limit = limit;
    const auto plan = parallelism::build_step(model, chip(), par, t);
    runtime::InputPipeline input(t.input, t.micro_batch);
    const auto r = runtime::execute_step(plan, comm, input, runtime::Recording::kTimeline);
    expect_exact_partition(r);
    const auto& tasks = plan.stages[0].tasks;
    std::vector<SimTime> start(tasks.size(), -1), end(tasks.size(), -1);
    for (const auto& span : r.timeline) {
      if (span.stage == 0 && span.task != runtime::kNoTask) {
        start[span.task] = span.start_ps;
        end[span.task] = span.end_ps;
      }
    }
    std::vector<std::uint32_t> scatters;
    for (std::uint32_t i = 0; i < tasks.size(); ++i) {
      if (tasks[i].stream == parallelism::Stream::kDpReduce && tasks[i].op == parallelism::CommOp::kReduceScatter) {
        scatters.push_back(i);
      }
    }
    EXPECT_GE(scatters.size(), 12U);  // every layer's, both microbatches
    int ahead = 0;
    for (std::size_t j = static_cast<std::size_t>(n); j < scatters.size(); ++j) {
      const SimTime done = end[scatters[j - static_cast<std::size_t>(n)]];
      for (std::uint32_t i = scatters[j] + 1; i < tasks.size(); ++i) {
        const bool computes = tasks[i].kind == parallelism::TaskKind::kCompute && tasks[i].stream == parallelism::Stream::kCompute;
        if (computes && start[i] >= 0 && start[i] < done) ++ahead;
      }
    }
    return ahead;
  };
  EXPECT_GT(runs_ahead(0, 1), 0);  // the premise: unlimited, the backward runs ahead of the queue
  EXPECT_EQ(runs_ahead(1, 1), 0);
  EXPECT_GT(runs_ahead(2, 1), 0);  // two outstanding: the compute may run one further
  EXPECT_EQ(runs_ahead(2, 2), 0);
}

TEST(DpSerial, RunsTheGathersAndReductionsOfOneCommunicatorOneAtATime) {
  // ZeRO-3 with collectives far slower than the layers: side by side, the gather and reduce
  // streams overlap each other; on one communicator (NCCL) no two of them are ever in flight
  // together, so the step lasts at least the sum of their times. Links are not shared here
  // (ClosedFormComm without sharing), so only the rule can make them wait.
  ClosedFormComm comm(1'000'000, 2e9);
  const auto model = uniform_model(4);
  const ParallelSpec par = zero3(4);
  TrainingSpec t;
  t.global_batch = 8;  // two microbatches: the reductions of the first meet the gathers of the second
  const auto side_by_side = run(model, par, t, comm);
  t.overlap.dp_serial = true;
  const auto plan = parallelism::build_step(model, chip(), par, t);
  ASSERT_TRUE(plan.dp_serial);
  runtime::InputPipeline input(t.input, t.micro_batch);
  const auto serial = runtime::execute_step(plan, comm, input, runtime::Recording::kTimeline);
  expect_exact_partition(serial);

  SimTime sum = 0;
  for (const auto& task : plan.stages[0].tasks) {
    const bool dp = task.stream == parallelism::Stream::kDpGather || task.stream == parallelism::Stream::kDpReduce;
    if (dp && task.kind == parallelism::TaskKind::kCollective) sum += comm.cost(task.bytes);
  }
  EXPECT_LT(side_by_side.step_ps, sum);  // the premise: side by side, they overlapped
  EXPECT_GE(serial.step_ps, sum);
  EXPECT_GT(serial.step_ps, side_by_side.step_ps);

  std::vector<std::pair<SimTime, SimTime>> spans;
  for (const auto& s : serial.timeline) {
    if (s.stream == parallelism::Stream::kDpGather || s.stream == parallelism::Stream::kDpReduce) {
      spans.emplace_back(s.start_ps, s.end_ps);
    }
  }
  std::sort(spans.begin(), spans.end());
  ASSERT_FALSE(spans.empty());
  SimTime busy = 0;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    busy += spans[i].second - spans[i].first;
    if (i > 0) {
      EXPECT_GE(spans[i].first, spans[i - 1].second) << "dp collective " << i << " overlaps the one before";
    }
  }
  EXPECT_EQ(busy, sum);  // each ran alone, for exactly its time
}

}  // namespace
}  // namespace podsim
