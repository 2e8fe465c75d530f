// Wall time of simulating large collectives, on both network models: the figures the
// foundation issue asks for (1 GiB all-reduce over all 4096 chips of a TPU v4 pod), the
// contention-aware one as flows (its default for large messages) and as chunks.
#include <benchmark/benchmark.h>

#include "collectives/collective_timing.hpp"
#include "collectives/group.hpp"
#include "topology/topology.hpp"

namespace {

using namespace podsim;

topology::Topology v4_pod() {
  // TPU v4 16x16x16: 45 GB/s per link direction, 1 us per hop (topologies/tpu-v4-16x16x16.yaml).
  return topology::Topology(topology::TopologySpec{
      "tpu-v4-16x16x16", topology::GridSpec{{16, 16, 16}, {true, true, true}, false, {45e9, 1'000'000}}});
}

void run(benchmark::State& state, network::Fidelity fidelity, collectives::Algorithm algorithm,
         std::vector<int> axes, network::ContentionModel contention = network::ContentionModel::kAuto) {
  const auto topo = v4_pod();
  const auto groups = collectives::make_groups(topo, axes);
  network::NetworkSpec net;
  net.fidelity = fidelity;
  net.contention = contention;
  collectives::CollectiveTiming t;
  for (auto _ : state) {
    t = collectives::time_collective(topo, net, {collectives::Op::kAllReduce, algorithm, 1ull << 30}, groups);
  }
  state.counters["simulated_s"] = t.time_s;
  state.counters["busbw_GBps"] = t.busbw_Bps / 1e9;
  state.counters["transfers"] = static_cast<double>(t.transfers);
  state.counters["events"] = static_cast<double>(t.events);
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(t.events) * static_cast<double>(state.iterations()),
                                                      benchmark::Counter::kIsRate);
}

void BM_AllReduce1GiB_4096_Torus_Analytical(benchmark::State& s) {
  run(s, network::Fidelity::kAnalytical, collectives::Algorithm::kTorus, {0, 1, 2});
}
void BM_AllReduce1GiB_4096_Torus_Contention(benchmark::State& s) {
  run(s, network::Fidelity::kContention, collectives::Algorithm::kTorus, {0, 1, 2});  // flows (auto)
}
void BM_AllReduce1GiB_4096_Torus_ContentionChunks(benchmark::State& s) {
  run(s, network::Fidelity::kContention, collectives::Algorithm::kTorus, {0, 1, 2}, network::ContentionModel::kChunk);
}
void BM_AllReduce1GiB_4096_Ring_Analytical(benchmark::State& s) {
  run(s, network::Fidelity::kAnalytical, collectives::Algorithm::kRing, {0, 1, 2});
}
void BM_AllReduce1GiB_4096_Ring_Contention(benchmark::State& s) {
  run(s, network::Fidelity::kContention, collectives::Algorithm::kRing, {0, 1, 2});  // flows (auto)
}
void BM_AllReduce1GiB_4096_Ring_ContentionChunks(benchmark::State& s) {
  run(s, network::Fidelity::kContention, collectives::Algorithm::kRing, {0, 1, 2}, network::ContentionModel::kChunk);
}
BENCHMARK(BM_AllReduce1GiB_4096_Torus_Analytical)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_AllReduce1GiB_4096_Torus_Contention)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_AllReduce1GiB_4096_Torus_ContentionChunks)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_AllReduce1GiB_4096_Ring_Analytical)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_AllReduce1GiB_4096_Ring_Contention)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_AllReduce1GiB_4096_Ring_ContentionChunks)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
