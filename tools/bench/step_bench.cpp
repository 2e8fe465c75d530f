// Wall time of simulating one training step: GPT-3 175B on a 4096-chip TPU v4 pod
// (configs/examples/gpt3-175b-tpu-v4.yaml: tp 8, pp 16, dp 32, 1F1B, selective recompute),
// on both network models.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "config/scenario_config.hpp"
#include "runtime/step_simulation.hpp"

namespace {

using namespace podsim;

runtime::Scenario gpt3_on_v4(network::Fidelity fidelity) {
  // The shipped default scenario, so the benchmark measures what users run.
  runtime::Scenario s =
      config::load_scenario(std::string(PODSIM_SOURCE_DIR) + "/configs/examples/gpt3-175b-tpu-v4.yaml").scenario;
  s.network.fidelity = fidelity;
  return s;
}

void run(benchmark::State& state, network::Fidelity fidelity) {
  const runtime::Scenario s = gpt3_on_v4(fidelity);
  runtime::StepReport r;
  for (auto _ : state) r = runtime::simulate_step(s);
  state.counters["simulated_step_s"] = r.step_s;
  state.counters["mfu"] = r.mfu;
  state.counters["events"] = static_cast<double>(r.execution.events);
  state.counters["collectives_simulated"] = static_cast<double>(r.simulated_collectives);
}

void BM_Gpt3Step_4096_Analytical(benchmark::State& s) { run(s, network::Fidelity::kAnalytical); }
void BM_Gpt3Step_4096_Contention(benchmark::State& s) { run(s, network::Fidelity::kContention); }
BENCHMARK(BM_Gpt3Step_4096_Analytical)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Gpt3Step_4096_Contention)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
