#include "cli/run_command.hpp"

#include <cstdio>
#include <iostream>

#include "config/scenario_config.hpp"
#include "memory/memory_model.hpp"
#include "output/chrome_trace.hpp"
#include "output/hdf5_writer.hpp"
#include "output/step_text.hpp"
#include "parallelism/work_bounds.hpp"
#include "partition/mpi_executor.hpp"
#include "runtime/step_simulation.hpp"
#include "util/error.hpp"

namespace podsim::cli {

void run_scenario(const RunOptions& options, const Invocation& invocation) {
  const config::LoadedScenario loaded = config::load_scenario(options.file, config::parse_overrides(options.sets));
  require_same_inputs(loaded.inputs, invocation);
  const runtime::Scenario& s = loaded.scenario;
  const auto work = parallelism::estimate_work(s.model, s.parallel, s.training);
  if (const auto why = parallelism::over_budget(work, s.training); why && !options.force) {
    throw InputError(loaded.where("training.global_batch") + ": training.global_batch: " + *why);
  }
  for (const int stage : options.trace_stages) {
    if (stage >= s.parallel.pp) {
      throw InputError("--trace-stages " + std::to_string(stage) + ": the pipeline has " + std::to_string(s.parallel.pp) +
                       (s.parallel.pp == 1 ? " stage (0)" : " stages (0 to " + std::to_string(s.parallel.pp - 1) + ")"));
    }
  }
  if (!options.trace_stages.empty() && options.trace_file.empty()) {
    throw InputError("--trace-stages chooses the stages of the --trace file: give --trace FILE.json too");
  }
  if (options.timeline && options.output_file.empty()) {
    throw InputError("--timeline writes the /timeline table into the -o file: give -o FILE.h5 too");
  }
  const auto claim = claim_output(options.output_file, loaded.inputs, invocation);
  if (!options.trace_file.empty() && options.trace_file == options.output_file) {
    throw InputError("--trace " + options.trace_file + " is also the -o file");
  }
  const auto trace_claim = claim_output(options.trace_file, loaded.inputs, invocation);
  // Contention-aware simulations big enough to gain (network.min_partitioned_transfers) are
  // split over the MPI processes.
  partition::MpiExecutor executor(*invocation.world);
  const runtime::StepReport report = [&] {
    try {
      return runtime::simulate_step(loaded.scenario, executor,
                                    options.trace_file.empty() && !options.timeline ? runtime::Recording::kCriticalPath
                                                                                    : runtime::Recording::kTimeline,
                                    nullptr, options.force ? runtime::Budget::kIgnore : runtime::Budget::kEnforce);
    } catch (const runtime::BeyondWorkBudget& e) {
      throw InputError(loaded.where(e.key()) + ": " + e.key() + ": " + e.what());
    }
  }();
  note_idle_processes(executor.stats(), report.contention.flows + report.contention.chunks, invocation);
  if (options.stats) {
    report_parallel_stats(executor.stats(), invocation);
    if (invocation.prints()) {
      std::fprintf(stderr,
                   "podsim stats: step of %d microbatch(es) per replica; %llu period(s) of repeated microbatches "
                   "added, not simulated (docs/runtime.md, \"Steady state\")\n",
                   report.microbatches, static_cast<unsigned long long>(report.execution.repeated_periods));
    }
  }
  const topology::Topology topo(loaded.scenario.topology);
  const output::RunLabels labels{loaded.name, loaded.scenario.topology.name};

  if (claim) {
    claim->write(output::hdf5_bytes(
        output::FileInfo{invocation.version, invocation.command_line, loaded.resolved_yaml(), 1},
        output::step_tables(loaded.scenario, report, topo, labels)));
  }
  if (trace_claim) {
    trace_claim->write(output::chrome_trace(report, {options.trace_stages, options.trace_max_events}));
  }
  if (invocation.prints()) {
    std::cout << (options.json ? output::step_json(loaded.scenario, report, labels) + "\n"
                               : output::step_text(loaded.scenario, report, topo, labels));
  }
  if (const auto why = memory::does_not_fit(report.memory); why && !options.allow_oom) {
    throw SimulationError("this layout does not fit in memory: " + *why +
                          " (breakdown above); try more tensor or pipeline parallelism, a higher ZeRO stage or "
                          "recompute, or pass --allow-oom to accept the report as is");
  }
}

}  // namespace podsim::cli
