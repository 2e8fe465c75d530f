// The step's bound from its programs (runtime::program_bound_ps), which the planner prunes
// with before executing: never above the executed step, and equal to it where one stream or
// one link is the whole step.

#include <gtest/gtest.h>

#include <filesystem>

#include "closed_form_support.hpp"
#include "collectives/schedule_runner.hpp"
#include "config/scenario_config.hpp"
#include "runtime/program_bound.hpp"
#include "runtime/step_simulation.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;
using parallelism::CommAxis;
using parallelism::CommOp;
using parallelism::Stream;

TEST(ProgramBound, NeverAboveTheStepOfSmallLayouts) {
  const auto model = closed_form::uniform_model(8);
  for (const bool shared : {false, true}) {
    for (const auto& l : closed_form::small_layouts(16)) {
      closed_form::ClosedFormComm comm(2'000'000, 100e9, shared);
      const auto plan = parallelism::build_step(model, closed_form::chip(), l.parallel, l.training);
      const SimTime bound = runtime::program_bound_ps(plan, comm);
      const auto r = runtime::execute_step(plan, comm, l.training.input, l.training.micro_batch);
      EXPECT_GT(bound, 0) << l.name;
      EXPECT_LE(bound, r.step_ps) << l.name << (shared ? ", one shared link" : "");
    }
  }
}

TEST(ProgramBound, IsTheStepWhenComputeIsAll) {
  // One chip, nothing to communicate: the compute stream's tasks one after another are the step.
  parallelism::ParallelSpec p;
  parallelism::TrainingSpec t;
  t.global_batch = 4;
  closed_form::ClosedFormComm comm(0, 0);
  const auto plan = parallelism::build_step(closed_form::uniform_model(4), closed_form::chip(), p, t);
  const auto r = runtime::execute_step(plan, comm, t.input, t.micro_batch);
  EXPECT_EQ(runtime::program_bound_ps(plan, comm), r.step_ps);
}

TEST(ProgramBound, SumsTheStreamsThatShareALink) {
  // A gather and a reduction of 1 GB, each on its own stream, on one link of 100 GB/s: each
  // alone takes 10 ms, together they share it for 20 ms; the link's work is the bound.
  parallelism::StepPlan plan;
  plan.microbatches = 1;
  plan.stages.emplace_back();
  auto& program = plan.stages.back();
  program.add(closed_form::collective_task(Stream::kDpGather, CommAxis::kDp, CommOp::kAllGather, 1e9));
  program.add(closed_form::collective_task(Stream::kDpReduce, CommAxis::kDp, CommOp::kReduceScatter, 1e9));
  closed_form::ClosedFormComm comm(0, 100e9, true);
  const auto r = runtime::execute_step(plan, comm, parallelism::InputPipelineSpec{}, 1);
  EXPECT_EQ(r.step_ps, 20'000'000'000);
  EXPECT_EQ(runtime::program_bound_ps(plan, comm), r.step_ps);
  // On links of their own they overlap: each stream alone is the bound, and the step.
  closed_form::ClosedFormComm apart(0, 100e9, false);
  EXPECT_EQ(runtime::program_bound_ps(plan, apart), 10'000'000'000);
  EXPECT_EQ(runtime::execute_step(plan, apart, parallelism::InputPipelineSpec{}, 1).step_ps, 10'000'000'000);
}

TEST(ProgramBound, TakesTurnsOnTheDataParallelCommunicator) {
  // dp_serial: the two streams' collectives run one at a time even on links of their own.
  parallelism::StepPlan plan;
  plan.microbatches = 1;
  plan.dp_serial = true;
  plan.stages.emplace_back();
  auto& program = plan.stages.back();
  program.add(closed_form::collective_task(Stream::kDpGather, CommAxis::kDp, CommOp::kAllGather, 1e9));
  program.add(closed_form::collective_task(Stream::kDpReduce, CommAxis::kDp, CommOp::kReduceScatter, 1e9));
  closed_form::ClosedFormComm comm(0, 100e9, false);
  EXPECT_EQ(runtime::program_bound_ps(plan, comm), 20'000'000'000);
  EXPECT_EQ(runtime::execute_step(plan, comm, parallelism::InputPipelineSpec{}, 1).step_ps, 20'000'000'000);
}

/// Every example on both networks: the bound simulate_step takes (with a cutoff it cannot
/// reach) is at most the step it then executes; with a cutoff below the bound, nothing runs.
TEST(ProgramBound, NeverAboveTheStepOfTheExamples) {
  for (const auto& entry : fs::directory_iterator(fs::path(PODSIM_SOURCE_DIR) / "configs" / "examples")) {
    for (const auto fidelity : {network::Fidelity::kAnalytical, network::Fidelity::kContention}) {
      runtime::Scenario s = config::load_scenario(entry.path(), {}).scenario;
      s.network.fidelity = fidelity;
      collectives::SequentialExecutor here;
      const auto name = entry.path().filename().string() +
                        (fidelity == network::Fidelity::kAnalytical ? " analytical" : " contention");
      const auto r = runtime::simulate_step(s, here, runtime::Recording::kTotals, nullptr, runtime::Budget::kEnforce,
                                            kMaxStepPs);
      ASSERT_FALSE(r.pruned) << name;
      EXPECT_GT(r.program_bound_ps, 0) << name;
      EXPECT_LE(r.program_bound_ps, r.execution.step_ps) << name;
      const auto cut = runtime::simulate_step(s, here, runtime::Recording::kTotals, nullptr, runtime::Budget::kEnforce,
                                              r.program_bound_ps - 1);
      EXPECT_TRUE(cut.pruned) << name;
      EXPECT_EQ(cut.program_bound_ps, r.program_bound_ps) << name;
      EXPECT_TRUE(cut.execution.stages.empty()) << name;
    }
  }
}

}  // namespace
}  // namespace podsim
