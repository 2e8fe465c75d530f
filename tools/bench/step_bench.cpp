// Wall time of simulating one training step: GPT-3 175B on a 4096-chip TPU v4 pod
// (tp 8, pp 16, dp 32, 1F1B, selective recompute), on both network models.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "runtime/step_simulation.hpp"

namespace {

using namespace podsim;

runtime::Scenario gpt3_on_v4(network::Fidelity fidelity) {
  runtime::Scenario s;
  // configs/models/gpt3-175b.yaml
  s.model = workload::ModelSpec{"gpt3-175b", 96, 12288, 49152, 96, 96, 128, 51200, 2048,
                                workload::MlpKind::kGelu, false, true, workload::PositionEmbedding::kLearned,
                                workload::NormKind::kLayerNorm};
  // configs/hardware/tpu-v4.yaml (peak, HBM; efficiencies as shipped)
  s.chip.name = "tpu-v4";
  s.chip.peak_flops = {{hardware::DType::kBf16, 275e12}, {hardware::DType::kInt8, 275e12}};
  s.chip.hbm_capacity_bytes = 32.0 * (1ull << 30);
  s.chip.hbm_bandwidth_Bps = 1200e9;
  s.chip.matmul_tile = 128;
  s.chip.efficiency = hardware::Efficiency{0.8, 0.85, 1'000'000, 0.95, 0.9};
  s.topology = topology::TopologySpec{"tpu-v4-16x16x16",
                                      topology::GridSpec{{16, 16, 16}, {true, true, true}, false, {45e9, 1'000'000}}};
  s.network.fidelity = fidelity;
  s.parallel.dp = 32;
  s.parallel.tp = 8;
  s.parallel.pp = 16;
  s.parallel.zero = 1;
  s.parallel.sequence_parallel = true;
  s.training.global_batch = 1536;
  s.training.micro_batch = 1;
  s.training.seq_len = 2048;
  s.training.recompute = parallelism::Recompute::kSelective;
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
