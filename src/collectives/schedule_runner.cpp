#include "collectives/schedule_runner.hpp"

#include <algorithm>

#include "core/simulator.hpp"

namespace podsim::collectives {

namespace {

/// Sends transfers as their dependencies complete.
class Runner final : public network::TransferListener {
 public:
  explicit Runner(const Schedule& schedule)
      : schedule_(schedule),
        pending_(schedule.size()),
        dependents_begin_(schedule.size() + 1, 0),
        finish_ps_(schedule.collectives(), 0) {
    // Invert the dependency lists (CSR) so a completion finds its dependents directly.
    for (TransferIndex i = 0; i < schedule.size(); ++i) {
      pending_[i] = static_cast<std::uint32_t>(schedule.deps(i).size());
      for (TransferIndex d : schedule.deps(i)) ++dependents_begin_[d + 1];
    }
    for (std::size_t i = 0; i < schedule.size(); ++i) dependents_begin_[i + 1] += dependents_begin_[i];
    dependents_.resize(dependents_begin_.back());
    std::vector<std::uint32_t> fill(dependents_begin_.begin(), dependents_begin_.end() - 1);
    for (TransferIndex i = 0; i < schedule.size(); ++i) {
      for (TransferIndex d : schedule.deps(i)) dependents_[fill[d]++] = i;
    }
  }

  void attach(network::NetworkModel& net) { net_ = &net; }

  void start(core::Simulator& sim) {
    for (TransferIndex i = 0; i < schedule_.size(); ++i) {
      if (pending_[i] == 0) send(sim, i);
    }
  }

  void transfer_done(core::Simulator& sim, std::uint64_t tag) override {
    const auto i = static_cast<TransferIndex>(tag);
    SimTime& finish = finish_ps_[schedule_.transfer(i).collective];
    finish = std::max(finish, sim.now());
    for (std::uint32_t k = dependents_begin_[i]; k < dependents_begin_[i + 1]; ++k) {
      const TransferIndex next = dependents_[k];
      if (--pending_[next] == 0) send(sim, next);
    }
  }

  const std::vector<SimTime>& finish_ps() const { return finish_ps_; }

 private:
  void send(core::Simulator& sim, TransferIndex i) {
    const PlannedTransfer& t = schedule_.transfer(i);
    net_->send(sim, t.src, t.dst, t.bytes, i);
  }

  const Schedule& schedule_;
  network::NetworkModel* net_ = nullptr;
  std::vector<std::uint32_t> pending_;
  std::vector<std::uint32_t> dependents_begin_;
  std::vector<TransferIndex> dependents_;
  std::vector<SimTime> finish_ps_;
};

}  // namespace

ScheduleResult run_schedule(const topology::Topology& topo, const network::NetworkSpec& net_spec,
                            const Schedule& schedule) {
  core::SequentialSynchronizer sync;
  core::Simulator sim(sync);
  Runner runner(schedule);
  const auto net = network::make_network(net_spec, topo, sim, 0, runner);
  runner.attach(*net);
  runner.start(sim);
  sim.run();
  return ScheduleResult{runner.finish_ps(), net->link_usage(), sim.events_processed()};
}

}  // namespace podsim::collectives
