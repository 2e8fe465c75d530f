#include "cli/plan_command.hpp"

#include <filesystem>
#include <iostream>

#include "cli/named_file.hpp"
#include "config/scenario_config.hpp"
#include "output/hdf5_writer.hpp"
#include "plan/plan_report.hpp"
#include "plan/plan_run.hpp"
#include "util/error.hpp"

namespace podsim::cli {

namespace {

namespace fs = std::filesystem;

/// The planner chooses the layout: overrides of what it chooses would be silently lost.
void check_sets(const std::vector<config::Override>& overrides) {
  for (const auto& o : overrides) {
    if (o.path.rfind("parallelism", 0) == 0 || o.path == "training.micro_batch" || o.path == "training.recompute" ||
        o.path == "training.global_batch" || o.path == "training.seq_len" || o.path == "model" ||
        o.path == "hardware" || o.path == "topology") {
      throw InputError(o.text + ": the planner chooses " + o.path +
                       " itself (or it has its own flag); --set is for the rest of the scenario, e.g. "
                       "training.flash_attention=true or network.max_chunks=32");
    }
  }
}

}  // namespace

void run_plan_command(const PlanOptions& options, const Invocation& invocation) {
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
  const plan::PlanResult result = plan::run_plan(loaded.scenario, run, *invocation.world);
  if (!invocation.prints()) return;

  const plan::PlanRequest request{loaded.scenario, loaded.scenario.topology.name, options.top};
  if (claim) {
    const std::string config_yaml = "# podsim plan: the base scenario; each layout replaces its parallelism, "
                                    "training.micro_batch and training.recompute\n" +
                                    loaded.resolved_yaml();
    claim->write(output::hdf5_bytes(output::FileInfo{invocation.version, invocation.command_line, config_yaml, 1},
                                    {plan::plan_table(result)}));
  }
  std::cout << (options.json ? plan::plan_json(request, result) + "\n" : plan::plan_text(request, result));
}

}  // namespace podsim::cli
