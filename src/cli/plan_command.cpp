#include "cli/plan_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "config/scenario_config.hpp"
#include "output/hdf5_writer.hpp"
#include "plan/plan_report.hpp"
#include "plan/plan_run.hpp"
#include "util/error.hpp"
#include "util/input_file.hpp"
#include "util/suggest.hpp"

namespace podsim::cli {

namespace {

namespace fs = std::filesystem;

/// `value` as a file if there is one, else the YAML file of that name in `dir`.
fs::path resolve(const std::string& flag, const std::string& value, const fs::path& dir) {
  std::error_code unreadable;
  if (fs::exists(fs::symlink_status(value, unreadable))) {
    (void)check_input_file(value, flag + " " + value);  // a device, FIFO, directory or loop says so
    return value;
  }
  const fs::path named = dir / (value + ".yaml");
  if (fs::is_regular_file(named)) return named;
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  throw InputError(flag + " " + value + ": no such file, nor a file " + value + ".yaml in " + dir.string() +
                   did_you_mean(value, names) + (names.empty() ? "" : "; known names are " + join_choices(names)));
}

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
  const fs::path root = options.root.empty() ? fs::path(PODSIM_SOURCE_DIR) : fs::path(options.root);
  config::ScenarioParts parts;
  parts.model = resolve("--model", options.model, root / "configs" / "models");
  parts.hardware = resolve("--hardware", options.hardware, root / "configs" / "hardware");
  parts.topology = resolve("--topology", options.topology, root / "topologies");
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
