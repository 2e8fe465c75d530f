// libFuzzer target: a scenario document through `podsim run`'s whole path, minus the files
// it writes. The input is written to configs/examples/ of a private copy of the repository's
// layout (fuzz_workspace.hpp), so includes like `model: ../models/gpt3-175b.yaml` resolve as
// in the shipped examples; then config::load_scenario (YAML, includes, schema, layout check)
// and, for a small enough scenario, runtime::simulate_step with the MpiExecutor of a
// one-process run and the report podsim prints (text, JSON, the HDF5 tables in memory).
//
// Acceptable outcomes: podsim::InputError (and its subclasses: InfeasibleLayout,
// LayoutError) from loading, SimulationError from simulating. Anything else — another
// exception (it terminates at the throw, with its stack), a sanitizer report, a timeout —
// is a finding.

#include <cstddef>
#include <cstdint>
#include <string>

#include "config/scenario_config.hpp"
#include "fuzz_workspace.hpp"
#include "memory/memory_model.hpp"
#include "output/step_tables.hpp"
#include "output/step_text.hpp"
#include "partition/communicator.hpp"
#include "partition/mpi_executor.hpp"
#include "runtime/step_simulation.hpp"
#include "topology/topology.hpp"
#include "util/error.hpp"

namespace {

using namespace podsim;

// Bounds on the simulated work so that each input stays fast (tens of milliseconds under
// the sanitizers): a step costs about microbatches × layers operations, each with its
// collectives, whose cost grows with the chips they span; the contention-aware network
// simulates every chunk on every link, so it gets tighter bounds. Measured on the -O1 fuzz
// build: 64 chips × 16 microbatches × 96 layers ≈ 0.2 s. The loader itself is never bounded.
constexpr std::uint64_t kMaxChips = 64;
constexpr std::uint64_t kMaxWork = 1024;  // microbatches × layers
constexpr std::uint64_t kMaxContentionChips = 16;
constexpr std::uint64_t kMaxContentionWork = 256;

/// Empty when the scenario is small enough to simulate, else why not.
std::string too_large(const runtime::Scenario& s) {
  const std::uint64_t chips = topology::chip_count(s.topology);
  const auto per_step = static_cast<std::uint64_t>(s.parallel.dp) *
                        static_cast<std::uint64_t>(s.training.micro_batch);
  const std::uint64_t microbatches =
      per_step > 0 ? static_cast<std::uint64_t>(s.training.global_batch) / per_step : 0;
  const std::uint64_t work = microbatches * static_cast<std::uint64_t>(s.model.layers);
  const bool contention = s.network.fidelity == network::Fidelity::kContention;
  if (chips <= (contention ? kMaxContentionChips : kMaxChips) &&
      work <= (contention ? kMaxContentionWork : kMaxWork)) {
    return {};
  }
  return "not simulated: " + std::to_string(chips) + " chips, " + std::to_string(work) +
         " microbatch-layers";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = fuzz::Workspace::get().write("configs/examples/fuzz-scenario.yaml", data, size);
  config::LoadedScenario loaded;
  try {
    loaded = config::load_scenario(file);
  } catch (const InputError& e) {
    fuzz::note("scenario", e.what());
    return 0;
  }
  if (const std::string why = too_large(loaded.scenario); !why.empty()) {
    fuzz::note("scenario", why);
    return 0;
  }
  try {
    const partition::Communicator world(0, 1);
    partition::MpiExecutor executor(world);
    const runtime::StepReport report = runtime::simulate_step(loaded.scenario, executor);
    const topology::Topology topo(loaded.scenario.topology);
    const output::RunLabels labels{loaded.name, loaded.scenario.topology.name};
    (void)output::step_tables(loaded.scenario, report, topo, labels);
    (void)output::step_text(loaded.scenario, report, topo, labels);
    (void)output::step_json(loaded.scenario, report, labels);
    (void)memory::does_not_fit(report.memory);
    fuzz::note("scenario", "simulated: step " + std::to_string(report.step_s) + " s");
  } catch (const InputError& e) {
    fuzz::note("scenario", std::string("simulate: ") + e.what());
  } catch (const SimulationError& e) {
    fuzz::note("scenario", std::string("simulate: ") + e.what());
  }
  return 0;
}
