#pragma once

#include <string>
#include <vector>

#include "memory/memory_model.hpp"
#include "runtime/network_comm_model.hpp"
#include "runtime/scenario.hpp"
#include "runtime/step_executor.hpp"
#include "runtime/step_memo.hpp"
#include "runtime/step_work.hpp"

namespace podsim::runtime {

/// One simulated training step and the metrics derived from it.
struct StepReport {
  ExecutionResult execution;
  std::vector<memory::MemoryBreakdown> memory;  ///< per pipeline stage (one chip)
  std::vector<LinkLoad> links;                  ///< per directed link, over the step
  std::string mesh;                             ///< where dp, tp and pp sit on the machine
  std::uint32_t chips = 0;
  int microbatches = 0;
  double step_s = 0;
  double tokens_per_s = 0;
  double samples_per_s = 0;
  double model_flops_per_step = 0;  ///< standard count (6·N·tokens + attention)
  double hardware_flops_per_step = 0;  ///< executed, recompute included, all chips
  double padded_flops_per_step = 0;    ///< the same with matmul dims padded to the chip's tile
  double mfu = 0;                   ///< model FLOPs / (step × chips × peak)
  double hfu = 0;                   ///< hardware FLOPs / (step × chips × peak)
  double peak_flops = 0;            ///< per chip, in the compute dtype
  std::size_t simulated_collectives = 0;
  /// Contention-aware network: how its communications were simulated.
  NetworkCommModel::ContentionCounts contention;
  /// With a cutoff (simulate_step's `prune_above`): the step's bound from its programs
  /// (program_bound_ps). Above the cutoff, nothing was executed: step_s is 0, and only the
  /// mesh, chips and microbatches are filled in.
  SimTime program_bound_ps = 0;
  bool pruned = false;

  /// Share of executed matmul work lost to padding dims up to the tile (0..1).
  double padding_waste() const;

  /// True when every stage fits in HBM.
  bool fits() const;
};

/// Validates the layout, builds the stage programs, simulates the step on the scenario's
/// network and computes the metrics. Throws parallelism::LayoutError / InputError for a
/// layout that cannot run, SimulationError if the simulation fails.
/// `recording` says what report.execution keeps beyond the totals: the critical path, and
/// the timeline (every interval of every stream, for `podsim run --trace`).
StepReport simulate_step(const Scenario& scenario, Recording recording = Recording::kCriticalPath);
/// The same, with the contention-aware network's simulations run by `executor`; with
/// `memo`, communication measurements are shared with the other simulations that use it
/// (the report is the same either way).
/// Before lowering any collective it estimates their cost (step_work.hpp) and, unless
/// `budget` is kIgnore, throws BeyondWorkBudget for a step beyond the budget.
/// With `prune_above` ≥ 0, the programs' bound (program_bound_ps) is taken first, and a step
/// bound to last longer is not executed (report.pruned: the planner's search). `built`: the
/// programs parallelism::build_step makes for `scenario`, built already (the planner builds
/// them once for a layout's bound and its simulation). With `steps` (and `memo`, whose
/// contexts name the machine), a step whose programs this process executed before on the same
/// machine, network settings and placement is not executed again (step_memo.hpp; not with a
/// cutoff or a host that limits); the report is the same either way.
StepReport simulate_step(const Scenario& scenario, collectives::ScheduleExecutor& executor,
                         Recording recording = Recording::kCriticalPath, CommMemo* memo = nullptr,
                         Budget budget = Budget::kEnforce, SimTime prune_above = -1,
                         const parallelism::StepPlan* built = nullptr, StepMemo* steps = nullptr);
/// simulate_step in this process, sharing measurements through `memo` and executed steps
/// through `steps`.
StepReport simulate_step(const Scenario& scenario, Recording recording, CommMemo& memo, StepMemo& steps);

}  // namespace podsim::runtime
