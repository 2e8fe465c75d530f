#include "collectives/schedule_runner.hpp"

#include <algorithm>
#include <string>

#include "core/simulator.hpp"
#include "util/error.hpp"

namespace podsim::collectives {

namespace {

/// Compressed lists: for each transfer, the transfers that wait for it.
struct Adjacency {
  std::vector<std::uint32_t> begin;
  std::vector<TransferIndex> items;

  void build(std::size_t n, const std::vector<std::pair<TransferIndex, TransferIndex>>& edges) {
    begin.assign(n + 1, 0);
    for (const auto& [from, to] : edges) ++begin[from + 1];
    for (std::size_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
    items.resize(edges.size());
    std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
    for (const auto& [from, to] : edges) items[fill[from]++] = to;
  }
};

/// Sends transfers as their dependencies complete.
class Runner final : public network::TransferListener {
 public:
  Runner(const Schedule& schedule, const network::LocalVertices& local)
      : schedule_(schedule), local_(local), pending_(schedule.size()), finish_ps_(schedule.collectives(), 0) {
    std::vector<std::pair<TransferIndex, TransferIndex>> on_departure;
    std::vector<std::pair<TransferIndex, TransferIndex>> on_arrival;
    for (TransferIndex i = 0; i < schedule.size(); ++i) {
      const VertexId src = schedule.transfer(i).src;
      pending_[i] = static_cast<std::uint32_t>(schedule.deps(i).size());
      for (const TransferIndex raw : schedule.deps(i)) {
        const TransferIndex d = raw & kDependencyIndex;
        const PlannedTransfer& dep = schedule.transfer(d);
        if ((raw & kOnDeparture) != 0) {
          on_departure.emplace_back(d, i);
        } else if ((raw & kOnArrival) != 0) {
          on_arrival.emplace_back(d, i);
        } else if (dep.src == src) {
          on_departure.emplace_back(d, i);
        } else if (dep.dst == src) {
          on_arrival.emplace_back(d, i);
        } else {
          throw SimulationError("transfer " + std::to_string(i) + " from chip " + std::to_string(src) +
                                " waits for transfer " + std::to_string(d) + ", which neither leaves nor reaches it");
        }
      }
    }
    after_departure_.build(schedule.size(), on_departure);
    after_arrival_.build(schedule.size(), on_arrival);
  }

  void attach(network::NetworkModel& net) { net_ = &net; }

  void start(core::Simulator& sim) {
    for (TransferIndex i = 0; i < schedule_.size(); ++i) {
      if (pending_[i] == 0 && is_local(schedule_.transfer(i).src)) send(sim, i);
    }
  }

  void transfer_departed(core::Simulator& sim, std::uint32_t tag) override { release(sim, after_departure_, tag); }

  void transfer_done(core::Simulator& sim, std::uint32_t tag) override {
    SimTime& finish = finish_ps_[schedule_.transfer(tag).collective];
    finish = std::max(finish, sim.now());
    release(sim, after_arrival_, tag);
  }

  SimTime arrival_delay_ps(std::uint32_t tag) const override { return schedule_.arrival_delay_ps(tag); }

  const std::vector<SimTime>& finish_ps() const { return finish_ps_; }

 private:
  bool is_local(VertexId c) const { return local_.empty() || local_[c] != 0; }

  void release(core::Simulator& sim, const Adjacency& waiting, TransferIndex done) {
    for (std::uint32_t k = waiting.begin[done]; k < waiting.begin[done + 1]; ++k) {
      const TransferIndex next = waiting.items[k];
      if (--pending_[next] == 0) send(sim, next);
    }
  }

  void send(core::Simulator& sim, TransferIndex i) {
    const PlannedTransfer& t = schedule_.transfer(i);
    net_->send(sim, t.src, t.dst, t.bytes, i, schedule_.delay_ps(i));
  }

  const Schedule& schedule_;
  const network::LocalVertices& local_;
  network::NetworkModel* net_ = nullptr;
  std::vector<std::uint32_t> pending_;
  Adjacency after_departure_;
  Adjacency after_arrival_;
  std::vector<SimTime> finish_ps_;
};

}  // namespace

network::ContentionModel contention_model(const network::NetworkSpec& net, const Schedule& schedule) {
  if (net.fidelity != network::Fidelity::kContention || net.contention != network::ContentionModel::kAuto) {
    return net.contention;
  }
  return network::contention_model_for(net, schedule.mean_bytes());
}

ScheduleResult run_schedule(const topology::Topology& topo, const network::NetworkSpec& net_spec,
                            const Schedule& schedule, const RunPart& part) {
  core::SequentialSynchronizer sequential;
  core::Simulator sim(part.sync != nullptr ? *part.sync : static_cast<core::Synchronizer&>(sequential));
  Runner runner(schedule, part.local);
  network::NetworkSpec resolved = net_spec;
  resolved.contention = contention_model(net_spec, schedule);
  const auto net = network::make_network(resolved, topo, sim, 0, runner, part.local);
  runner.attach(*net);
  runner.start(sim);
  sim.run();
  ScheduleResult result{runner.finish_ps(), net->link_usage(), sim.events_processed()};
  if (!schedule.link_images().empty()) {
    // The periodic schedule's loads, moved to every link of the schedule it stands for.
    // Linear in the loads, so a partitioned run's processes may each map their share.
    std::vector<network::LinkUsage> mapped = result.links;
    for (const auto& [from, to] : schedule.link_images()) mapped[from] = network::LinkUsage{};
    for (const auto& [from, to] : schedule.link_images()) {
      mapped[to].bytes += result.links[from].bytes;
      mapped[to].busy_ps += result.links[from].busy_ps;
    }
    result.links = std::move(mapped);
  }
  return result;
}

}  // namespace podsim::collectives
