// Merging compute runs (parallelism::fuse_compute_runs) must change nothing a user sees: the
// step, every stage's time categories and bytes stay exactly as they were with every task
// simulated on its own; only the number of tasks and events falls.
#include <gtest/gtest.h>

#include "closed_form_support.hpp"
#include "parallelism/step_program.hpp"

namespace podsim::closed_form {
namespace {

using parallelism::CommAxis;
using parallelism::ComputeCategory;
using parallelism::Stream;
using parallelism::Task;
using parallelism::TaskKind;

Task compute(ComputeCategory c, SimTime ps) {
  Task t;
  t.category = c;
  t.duration_ps = ps;
  t.flops = static_cast<double>(ps);
  return t;
}

TEST(ComputeRuns, MergeOnlyWhatNothingCanTellApart) {
  parallelism::StageProgram p;
  const auto f = ComputeCategory::kForward;
  const auto b = ComputeCategory::kBackward;
  p.add(compute(f, 10));                           // 0
  const auto one = p.add(compute(f, 20));          // 1: merges into 0
  p.add(compute(f, 30));                           // 2: 1 is waited for (by 3): kept
  Task tp;
  tp.kind = TaskKind::kCollective;
  tp.stream = Stream::kTp;
  tp.axis = CommAxis::kTp;
  const auto comm = p.add(tp, {one});              // 3: waits for the run 0+1
  p.add(compute(b, 5));                            // 4: another category: kept
  p.add(compute(b, 7), {comm});                    // 5: waits for a task: kept
  p.add(compute(b, 1));                            // 6: merges into 5
  parallelism::fuse_compute_runs(p);

  ASSERT_EQ(p.tasks.size(), 5u);
  EXPECT_EQ(p.tasks[0].duration_ps, 30);
  EXPECT_EQ(p.tasks[0].flops, 30.0);
  EXPECT_EQ(p.tasks[1].duration_ps, 30);
  EXPECT_EQ(p.tasks[2].kind, TaskKind::kCollective);
  ASSERT_EQ(p.tasks[2].deps_end - p.tasks[2].deps_begin, 1u);
  EXPECT_EQ(p.deps[p.tasks[2].deps_begin], 0u);  // the merged run it waited for
  EXPECT_EQ(p.tasks[3].duration_ps, 5);
  EXPECT_EQ(p.tasks[4].duration_ps, 8);
  ASSERT_EQ(p.tasks[4].deps_end - p.tasks[4].deps_begin, 1u);
  EXPECT_EQ(p.deps[p.tasks[4].deps_begin], 2u);  // the collective, renumbered
}

TEST(ComputeRuns, ChangeNoTimeOfAnyStageOnlyTheEvents) {
  const auto m = uniform_model(8);
  std::size_t fewer = 0;
  for (bool shared : {false, true}) {
    for (const SmallLayout& l : small_layouts(16)) {
      const std::string what = std::string(shared ? "shared" : "own") + " links, " + l.name;
      auto fused = parallelism::build_step(m, chip(), l.parallel, l.training);
      auto every = parallelism::build_step(m, chip(), l.parallel, l.training, parallelism::ComputeRuns::kEveryTask);
      // Compute at a constant rate: communication's HBM traffic beside a run would slow its
      // HBM-bound share, which a merged run spreads over the whole run (see below).
      fused.hbm_Bps = every.hbm_Bps = 0;
      ClosedFormComm comm_a(5'000'000, 50e9, shared);
      ClosedFormComm comm_b(5'000'000, 50e9, shared);
      const auto a = runtime::execute_step(fused, comm_a, l.training.input, l.training.micro_batch);
      const auto b = runtime::execute_step(every, comm_b, l.training.input, l.training.micro_batch);
      EXPECT_EQ(a.step_ps, b.step_ps) << what;
      ASSERT_EQ(a.stages.size(), b.stages.size());
      for (std::size_t s = 0; s < a.stages.size(); ++s) {
        EXPECT_EQ(a.stages[s].time_ps, b.stages[s].time_ps) << what << ", stage " << s;
        EXPECT_EQ(a.stages[s].comm_bytes, b.stages[s].comm_bytes) << what << ", stage " << s;
        EXPECT_EQ(a.stages[s].comm_busy_ps, b.stages[s].comm_busy_ps) << what << ", stage " << s;
        EXPECT_NEAR(a.stages[s].flops / b.stages[s].flops, 1.0, 1e-12) << what << ", stage " << s;
      }
      EXPECT_LE(a.events, b.events) << what;
      EXPECT_EQ(every.tasks_built, fused.tasks_built) << what;
      if (a.events < b.events) ++fewer;
    }
  }
  // Collective matmul cuts every tensor-parallel matmul into slices that run back to back.
  EXPECT_GT(fewer, 0u);
}

TEST(ComputeRuns, BesideHbmTrafficAMergedRunSpreadsItsHbmBoundShare) {
  // When communication takes HBM bandwidth, a run slows by its HBM-bound share: merged runs
  // spread that share evenly over the merged time, one task at a time does not, so the step
  // differs — by little, since the runs merged are short next to a step.
  const auto m = uniform_model(8);
  for (const SmallLayout& l : small_layouts(16)) {
    const auto fused = parallelism::build_step(m, chip(), l.parallel, l.training);
    const auto every = parallelism::build_step(m, chip(), l.parallel, l.training, parallelism::ComputeRuns::kEveryTask);
    ClosedFormComm comm_a(5'000'000, 50e9, true);
    ClosedFormComm comm_b(5'000'000, 50e9, true);
    const auto a = runtime::execute_step(fused, comm_a, l.training.input, l.training.micro_batch);
    const auto b = runtime::execute_step(every, comm_b, l.training.input, l.training.micro_batch);
    EXPECT_NEAR(static_cast<double>(a.step_ps) / static_cast<double>(b.step_ps), 1.0, 0.002) << l.name;
  }
}

}  // namespace
}  // namespace podsim::closed_form
