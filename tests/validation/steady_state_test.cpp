// Repeated microbatches added rather than simulated (runtime/steady_state.hpp), and steps
// built short and lengthened as they run (runtime/short_programs.hpp), must change nothing: every time category of every stage to the picosecond, every FLOP and byte to the
// bit, the events counted, the links' loads and the critical path are what simulating every
// microbatch gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "closed_form_support.hpp"
#include "collectives/schedule_runner.hpp"
#include "config/overrides.hpp"
#include "config/scenario_config.hpp"
#include "parallelism/overlap.hpp"
#include "runtime/short_programs.hpp"
#include "runtime/step_simulation.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

/// Everything a step reports, bit for bit.
void expect_same(const runtime::ExecutionResult& skipped, const runtime::ExecutionResult& every,
                 const std::string& what) {
  EXPECT_EQ(skipped.step_ps, every.step_ps) << what;
  EXPECT_EQ(skipped.events, every.events) << what;
  ASSERT_EQ(skipped.stages.size(), every.stages.size()) << what;
  for (std::size_t s = 0; s < every.stages.size(); ++s) {
    const auto& a = skipped.stages[s];
    const auto& b = every.stages[s];
    const std::string where = what + ", stage " + std::to_string(s);
    EXPECT_EQ(a.time_ps, b.time_ps) << where;
    EXPECT_EQ(a.flops, b.flops) << where;  // exact: the additions are replayed in order
    EXPECT_EQ(a.padded_flops, b.padded_flops) << where;
    EXPECT_EQ(a.comm_bytes, b.comm_bytes) << where;
    EXPECT_EQ(a.comm_busy_ps, b.comm_busy_ps) << where;
    EXPECT_EQ(a.compute_slowed_ps, b.compute_slowed_ps) << where;
  }
}

/// A step run with its repeated microbatches added (`skipped`) and simulated (`every`), each on
/// fresh closed-form communication and host.
struct BothWays {
  runtime::ExecutionResult skipped;
  runtime::ExecutionResult every;
};
BothWays run_both_ways(const parallelism::StepPlan& plan, const parallelism::TrainingSpec& training, bool shared) {
  closed_form::ClosedFormComm comm_a(5'000'000, 50e9, shared);
  closed_form::ClosedFormComm comm_b(5'000'000, 50e9, shared);
  runtime::InputPipeline host_a(training.input, training.micro_batch);
  runtime::InputPipeline host_b(training.input, training.micro_batch);
  BothWays r;
  r.skipped = runtime::execute_step(plan, comm_a, host_a, runtime::Recording::kTotals);
  r.every = runtime::execute_step(plan, comm_b, host_b, runtime::Recording::kTotals, runtime::Repeats::kSimulate);
  return r;
}

TEST(SteadyState, AddingRepeatedMicrobatchesChangesNoBitOfSmallLayouts) {
  const auto m = closed_form::uniform_model(8);
  std::size_t repeated = 0;
  std::size_t layouts = 0;
  for (bool shared : {false, true}) {
    for (const closed_form::SmallLayout& l : closed_form::small_layouts(256)) {
      const std::string what = std::string(shared ? "shared" : "own") + " links, " + l.name;
      const auto plan = parallelism::build_step(m, closed_form::chip(), l.parallel, l.training);
      const auto [skipped, every] = run_both_ways(plan, l.training, shared);
      expect_same(skipped, every, what);
      EXPECT_EQ(every.repeated_periods, 0u) << what;
      ++layouts;
      if (skipped.repeated_periods > 0) ++repeated;
      // Gradient accumulation without a pipeline or FSDP's gathers always settles.
      if (l.parallel.pp == 1 && l.parallel.zero != 3) {
        EXPECT_GT(skipped.repeated_periods, 0u) << what;
      }
    }
  }
  // 128 microbatches per replica. An interleaved pipeline on links shared by every stage, or
  // FSDP's gathers running ahead on links of their own, may drift by picoseconds from one
  // period to the next and never repeat exactly: those are simulated whole (56 of 96 repeat).
  EXPECT_GE(repeated, layouts / 3) << repeated << " of " << layouts;
}

TEST(SteadyState, AddingRepeatedMicrobatchesChangesNoBitOfEachStacksPrograms) {
  // The programs the stacks' own knobs build: XLA's and FSDP2's waits for the reduce-scatter one
  // back (maxtext, torchtitan), FSDP's SHARD_GRAD_OP for ZeRO-2 (torchtitan), Megatron-Core's
  // microbatch groups for the interleaved schedule (8 of the 128 microbatches per group).
  const auto m = closed_form::uniform_model(8);
  std::size_t repeated = 0;
  std::size_t layouts = 0;
  std::size_t lengthened = 0;
  std::size_t tried = 0;
  for (workload::Stack stack : {workload::Stack::kMaxText, workload::Stack::kTorchtitan, workload::Stack::kMegatronCore}) {
    for (closed_form::SmallLayout l : closed_form::small_layouts(256)) {
      l.training.stack = stack;
      l.training.overlap = parallelism::default_overlap(stack);
      l.training.overlap.tp = l.parallel.tp > 1 ? l.training.overlap.tp : parallelism::TpOverlap::kNone;
      if (stack == workload::Stack::kTorchtitan && l.parallel.zero == 1) l.parallel.zero = 2;
      if (stack == workload::Stack::kMegatronCore) {
        if (l.parallel.schedule != parallelism::PipelineSchedule::kInterleaved) continue;
        l.parallel.microbatch_group = 8;
      }
      const std::string what = std::string(workload::stack_name(stack)) + ", " + l.name;
      const auto plan = parallelism::build_step(m, closed_form::chip(), l.parallel, l.training);
      const auto [skipped, every] = run_both_ways(plan, l.training, true);
      expect_same(skipped, every, what);
      ++layouts;
      if (skipped.repeated_periods > 0) ++repeated;
      // Built short and lengthened as it runs (short_programs.hpp), where it applies.
      const int step = parallelism::microbatches(l.parallel, l.training);
      const int held = runtime::held_microbatches(l.parallel, step);
      if (held == step) continue;
      const auto part = parallelism::build_step(m, closed_form::chip(), l.parallel, l.training,
                                                parallelism::ComputeRuns::kFused, held);
      closed_form::ClosedFormComm comm_c(5'000'000, 50e9, true);
      runtime::InputPipeline host_c(l.training.input, l.training.micro_batch);
      const auto got = runtime::execute_step(part, comm_c, host_c, runtime::Recording::kTotals,
                                             runtime::Repeats::kSkip, step - held);
      ++tried;
      if (got.microbatches_added != step - held) continue;  // simulate_step builds it whole
      expect_same(got, skipped, what + ", built short");
      ++lengthened;
    }
  }
  EXPECT_GE(repeated, layouts / 2) << repeated << " of " << layouts;  // 98 of 120
  EXPECT_GE(lengthened, tried / 2) << lengthened << " of " << tried;  // 48 of 72
}

TEST(ShortPrograms, AStepBuiltShortAndLengthenedAsItRunsIsTheStepBuiltWhole) {
  // runtime/short_programs.hpp: programs holding a few of the step's 128 microbatches, the
  // rest added as repeated periods, against the whole programs (their repeats added too, which
  // the test above holds to simulating every microbatch): every bit of every stage's result.
  const auto m = closed_form::uniform_model(8);
  std::size_t lengthened = 0;
  std::size_t tried = 0;
  for (bool shared : {false, true}) {
    for (closed_form::SmallLayout l : closed_form::small_layouts(256)) {
      for (bool interleaved : {true, false}) {
        if (!interleaved) {
          if (l.parallel.pp == 1) continue;
          l.parallel.schedule = parallelism::PipelineSchedule::kOneFOneB;  // plain 1F1B
          l.parallel.virtual_stages = 1;
          l.name += ", 1F1B";
        }
        const int step = parallelism::microbatches(l.parallel, l.training);
        const int held = runtime::held_microbatches(l.parallel, step);
        if (l.parallel.zero == 3 && l.parallel.pp > 1) {
          EXPECT_EQ(held, step) << l.name;  // their state repeats late if at all
          continue;
        }
        ASSERT_LT(held, step) << l.name;
        const std::string what = std::string(shared ? "shared" : "own") + " links, " + l.name;
        const auto whole = parallelism::build_step(m, closed_form::chip(), l.parallel, l.training);
        const auto part = parallelism::build_step(m, closed_form::chip(), l.parallel, l.training,
                                                  parallelism::ComputeRuns::kFused, held);
        ASSERT_EQ(part.tokens_per_step, whole.tokens_per_step) << what;
        ASSERT_EQ(part.model_flops_per_step, whole.model_flops_per_step) << what;
        closed_form::ClosedFormComm comm_a(5'000'000, 50e9, shared);
        closed_form::ClosedFormComm comm_b(5'000'000, 50e9, shared);
        runtime::InputPipeline host_a(l.training.input, l.training.micro_batch);
        runtime::InputPipeline host_b(l.training.input, l.training.micro_batch);
        const auto expected = runtime::execute_step(whole, comm_a, host_a, runtime::Recording::kTotals);
        const auto got = runtime::execute_step(part, comm_b, host_b, runtime::Recording::kTotals,
                                               runtime::Repeats::kSkip, step - held);
        ++tried;
        // Gradient accumulation without a pipeline or FSDP's gathers always settles early.
        if (l.parallel.pp == 1 && l.parallel.zero != 3) {
          EXPECT_EQ(got.microbatches_added, step - held) << what;
        }
        // Not lengthened (or only partly): simulate_step builds the step whole.
        if (got.microbatches_added != step - held) continue;
        expect_same(got, expected, what);
        ++lengthened;
      }
    }
  }
  // Those whose whole programs drift and never repeat (most pipelines on links shared by every
  // stage, FSDP's gathers running ahead) cannot be lengthened either; a few repeat only late
  // (44 of 96 are lengthened).
  EXPECT_GE(lengthened, tried / 3) << lengthened << " of " << tried;
}

TEST(ShortPrograms, ShortProgramsAreOnlyForStepsTheyShortenAndNeverForGPipe) {
  parallelism::ParallelSpec p;
  p.pp = 4;
  p.schedule = parallelism::PipelineSchedule::kGPipe;  // its forwards, then its backwards: two runs
  EXPECT_EQ(runtime::held_microbatches(p, 128), 128);
  p.pp = 1;  // every forward, then every backward, without a pipeline too
  EXPECT_EQ(runtime::held_microbatches(p, 128), 128);
  p.pp = 4;
  p.schedule = parallelism::PipelineSchedule::kOneFOneB;
  EXPECT_EQ(runtime::held_microbatches(p, 12), 12);  // the warm-up and a unit: nothing to save
  const int held = runtime::held_microbatches(p, 128);
  EXPECT_LT(held, 128);
  EXPECT_EQ((128 - held) % 4, 0);  // periods of 1, 2 or 4 microbatches divide what is missing
  p.schedule = parallelism::PipelineSchedule::kInterleaved;
  p.virtual_stages = 2;
  const int interleaved = runtime::held_microbatches(p, 128);
  EXPECT_EQ(interleaved % 4, 0);  // Megatron's interleaving takes microbatches in groups of pp
  EXPECT_EQ((128 - interleaved) % 8, 0);
}

/// A scenario's step with the repeats added, keeping the totals and keeping the critical
/// path, against every microbatch simulated (a timeline records every interval, so nothing is
/// skipped): the totals, the links' loads and the critical path.
void compare(const runtime::Scenario& s, const std::string& what, std::size_t& repeated) {
  collectives::SequentialExecutor here;
  const auto totals = runtime::simulate_step(s, here, runtime::Recording::kTotals);
  const auto path = runtime::simulate_step(s, here, runtime::Recording::kCriticalPath);
  const auto every = runtime::simulate_step(s, here, runtime::Recording::kTimeline);
  EXPECT_EQ(every.execution.repeated_periods, 0u) << what;
  for (const auto* skipped : {&totals, &path}) {
    expect_same(skipped->execution, every.execution, what);
    ASSERT_EQ(skipped->links.size(), every.links.size()) << what;
    for (std::size_t i = 0; i < every.links.size(); ++i) {
      EXPECT_EQ(skipped->links[i].bytes, every.links[i].bytes) << what << ", link " << i;
      EXPECT_EQ(skipped->links[i].busy_ps, every.links[i].busy_ps) << what << ", link " << i;
    }
  }
  // (Totals are built short and lengthened where they can be, short_programs.hpp: their
  // repeats may be found elsewhere, and are counted differently.)
  ASSERT_EQ(path.execution.critical_path.size(), every.execution.critical_path.size()) << what;
  for (std::size_t i = 0; i < every.execution.critical_path.size(); ++i) {
    const auto& a = path.execution.critical_path[i];
    const auto& b = every.execution.critical_path[i];
    EXPECT_TRUE(a.stage == b.stage && a.task == b.task && a.category == b.category && a.start_ps == b.start_ps &&
                a.end_ps == b.end_ps)
        << what << ", critical path segment " << i;
  }
  if (totals.execution.repeated_periods > 0) ++repeated;
}

TEST(SteadyState, AddingRepeatedMicrobatchesChangesNoBitOfTheExamplesOnBothNetworks) {
  std::size_t repeated = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(PODSIM_SOURCE_DIR) / "configs" / "examples")) {
    for (const auto fidelity : {network::Fidelity::kAnalytical, network::Fidelity::kContention}) {
      runtime::Scenario s = config::load_scenario(entry.path(), {}).scenario;
      s.network.fidelity = fidelity;
      compare(s, entry.path().filename().string() + (fidelity == network::Fidelity::kAnalytical ? " analytical" : " contention"),
              repeated);
    }
  }
  EXPECT_GT(repeated, 0u);
}

TEST(SteadyState, AddingRepeatedMicrobatchesChangesNoBitOfTheSweepsLayouts) {
  // Points of the throughput benchmark's sweep (Llama 2 7B on 256 TPU v5e chips): pipelines,
  // every ZeRO stage, recompute, two microbatch sizes.
  const fs::path base = fs::path(PODSIM_SOURCE_DIR) / "configs" / "examples" / "dp-tp-llama2-13b-tpu-v5e.yaml";
  const std::string model = (fs::path(PODSIM_SOURCE_DIR) / "configs" / "models" / "llama2-7b.yaml").string();
  struct Point {
    int tp, pp, zero, micro_batch;
    const char* recompute;
    const char* schedule = "1f1b";
    int global_batch = 1024;
  };
  std::size_t repeated = 0;
  // GPipe runs every forward, then every backward, with pp 1 too: totals built short would be
  // wrong there (short_programs.hpp), so two GPipe steps that fit are among the points.
  for (const Point& p : {Point{8, 1, 1, 1, "selective"}, Point{2, 4, 1, 1, "none"}, Point{4, 2, 2, 2, "full"},
                         Point{1, 4, 3, 1, "selective"}, Point{8, 4, 0, 2, "none"}, Point{1, 1, 3, 1, "full"},
                         Point{8, 1, 1, 1, "full", "gpipe", 512}, Point{4, 2, 1, 1, "full", "gpipe", 512}}) {
    const std::vector<std::string> overrides = {
        "model=" + model,
        "parallelism.tp=" + std::to_string(p.tp),
        "parallelism.pp=" + std::to_string(p.pp),
        "parallelism.dp=" + std::to_string(256 / (p.tp * p.pp)),
        "parallelism.zero=" + std::to_string(p.zero),
        std::string("parallelism.schedule=") + p.schedule,
        "training.micro_batch=" + std::to_string(p.micro_batch),
        "training.global_batch=" + std::to_string(p.global_batch),
        std::string("training.recompute=") + p.recompute};
    const runtime::Scenario s = config::load_scenario(base, config::parse_overrides(overrides)).scenario;
    std::string what;
    for (const auto& o : overrides) what += o + " ";
    compare(s, what, repeated);
  }
  EXPECT_GE(repeated, 4u);
}

}  // namespace
}  // namespace podsim
