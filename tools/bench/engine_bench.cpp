// Raw event throughput of the engine: the classic "hold" model. A fixed population of
// pending events; each event, when run, schedules one successor a random time later, so
// the queue size stays constant while the clock advances.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "core/simulator.hpp"

namespace {

using podsim::core::EntityId;
using podsim::core::Event;
using podsim::core::Simulator;

class Hold final : public podsim::core::EventHandler {
 public:
  explicit Hold(std::uint64_t budget) : budget_(budget) {}
  void handle(Simulator& sim, const Event& e) override {
    if (budget_ == 0) return;
    --budget_;
    // xorshift64: cheap, deterministic increments between 1 and 1024 ps.
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    sim.schedule(sim.now() + 1 + static_cast<podsim::SimTime>(rng_ & 1023), e.target, e.target, 0);
  }

 private:
  std::uint64_t budget_;
  std::uint64_t rng_ = 0x9E3779B97F4A7C15ull;
};

void BM_HoldModel(benchmark::State& state) {
  const auto pending = static_cast<EntityId>(state.range(0));
  const std::uint64_t events = 5'000'000;
  std::uint64_t processed = 0;
  for (auto _ : state) {
    podsim::core::SequentialSynchronizer sync;
    Simulator sim(sync);
    Hold hold(events);
    sim.reserve(pending + 1);
    // One entity per pending event, so origins and sequences look like a real model's.
    for (EntityId i = 0; i < pending; ++i) {
      sim.bind(i, hold);
      sim.schedule(i % 1024, i, i, 0);
    }
    sim.run();
    processed += sim.events_processed();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(processed));
  state.counters["pending"] = static_cast<double>(pending);
}
BENCHMARK(BM_HoldModel)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
