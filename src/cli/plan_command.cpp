#include "cli/plan_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/app.hpp"
#include "cli/named_file.hpp"
#include "config/scenario_config.hpp"
#include "output/hdf5_writer.hpp"
#include "plan/plan_report.hpp"
#include "plan/plan_run.hpp"
#include "util/error.hpp"
#include "util/interrupt.hpp"
#include "util/units.hpp"

namespace podsim::cli {

namespace {

namespace fs = std::filesystem;

/// The planner chooses the layout: overrides of what it chooses would be silently lost.
void check_sets(const std::vector<config::Override>& overrides) {
  for (const auto& o : overrides) {
    if (o.path.rfind("parallelism", 0) == 0 || o.path == "training.micro_batch" ||
        o.path == "training.global_batch" || o.path == "training.seq_len" || o.path == "model" ||
        o.path == "hardware" || o.path == "topology") {
      throw InputError(o.text + ": the planner chooses " + o.path +
                       " itself (or it has its own flag); --set is for the rest of the scenario, e.g. "
                       "training.flash_attention=true or network.max_chunks=32");
    }
  }
}

/// The `rank`-th layout of `result` (1: the winner) as a scenario document `podsim run` takes:
/// the base scenario with the layout's knobs, on the network it was ranked on, so the run gives
/// the step time the plan printed.
std::string emitted_scenario(const config::LoadedScenario& loaded, const plan::PlanResult& result, std::size_t rank) {
  if (rank > result.ranking.size()) {
    throw InputError("--emit " + std::to_string(rank) + ": the plan ranked " + std::to_string(result.ranking.size()) +
                     (result.ranking.size() == 1 ? " layout" : " layouts") +
                     (result.ranking.empty() ? " (none fits and can run)" : ""));
  }
  const std::size_t index = result.ranking[rank - 1];
  const plan::Candidate& c = result.candidates[index];
  const bool contention = result.contention[index].has_value();
  std::vector<std::string> settings = plan::layout_settings(c.layout);
  settings.push_back(std::string("network.model=") + (contention ? "contention" : "analytical"));
  const config::LoadedScenario chosen = loaded.again(config::parse_overrides(settings), true);
  return "# podsim plan --emit " + std::to_string(rank) + ": layout #" + std::to_string(rank) + " of " +
         std::to_string(result.ranking.size()) + " ranked, " + plan::describe(c.layout) + ", " +
         units::format_fixed(result.best_outcome(index).step_s, 3) + " s per step on the " +
         (contention ? "contention-aware" : "analytical") + " network\n" + chosen.resolved_yaml();
}

}  // namespace

int run_plan_command(const PlanOptions& options, const Invocation& invocation) {
  const fs::path root = repository_root(options.root);
  config::ScenarioParts parts;
  parts.model = resolve_named_file("--model", options.model, root / "configs" / "models");
  parts.hardware = resolve_named_file("--hardware", options.hardware, root / "configs" / "hardware");
  parts.topology = resolve_named_file("--topology", options.topology, root / "topologies");
  parts.global_batch = options.global_batch;
  parts.seq_len = options.seq_len;
  const auto overrides = config::parse_overrides(options.sets);
  check_sets(overrides);
  const config::LoadedScenario loaded = config::compose_scenario(parts, overrides);
  require_same_inputs(loaded.inputs, invocation);
  const auto claim = claim_output(options.output_file, loaded.inputs, invocation);

  plan::PlanOptions run;
  run.space.micro_batches = options.micro_batches;
  run.space.memory_headroom = options.memory_headroom;
  run.contention_top = options.contention_top;
  run.progress = !options.quiet;
  run.force = options.force;
  run.exhaustive = options.exhaustive;
  // The table's rows and --emit's layout must be ranked exactly.
  run.exact_ranks = std::max(options.top, options.emit);
  // --set training.recompute=POLICY holds the search at that policy (read and checked as the
  // scenario's key); without it the planner tries the stack's whole menu.
  const auto held = std::find_if(overrides.begin(), overrides.end(),
                                 [](const config::Override& o) { return o.path == "training.recompute"; });
  if (held != overrides.end()) run.space.fixed.recompute = loaded.scenario.training.recompute;
  run.max_simulations = options.max_simulations;
  // Ctrl-C stops the search where it is; the plan answers with the best so far. (Under mpiexec
  // the launcher handles Ctrl-C itself and ends the job.)
  const InterruptScope ctrl_c;
  run.interrupted = [&ctrl_c] { return ctrl_c.requested(); };
  const plan::PlanResult result = plan::run_plan(loaded.scenario, run, *invocation.world);
  const int code = result.interrupted ? kExitInterrupted : kExitOk;
  if (!invocation.prints()) return code;

  const plan::PlanRequest request{loaded.scenario, loaded.scenario.topology.name, options.top};
  // Before anything is written: an --emit beyond the ranking is an error, not a half-done run.
  const std::string emitted = options.emit > 0 ? emitted_scenario(loaded, result, options.emit) : "";
  if (claim) {
    const std::string config_yaml = "# podsim plan: the base scenario; each layout replaces its parallelism, "
                                    "training.micro_batch and training.recompute (and training.overlap.tp where the tp_overlap column differs from it)\n" +
                                    loaded.resolved_yaml();
    claim->write(output::hdf5_bytes(output::FileInfo{invocation.version, invocation.command_line, config_yaml, 1},
                                    {plan::plan_table(request, result), plan::plan_verdicts_table(request, result)}));
  }
  if (options.emit > 0) {
    std::cout << emitted;
    return code;
  }
  std::cout << (options.json ? plan::plan_json(request, result) + "\n" : plan::plan_text(request, result));
  return code;
}

}  // namespace podsim::cli
