#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "collectives/schedule.hpp"
#include "core/synchronizer.hpp"
#include "network/network_model.hpp"

namespace podsim::collectives {

/// What running a schedule produced (in a partitioned run: this process's part of it).
struct ScheduleResult {
  std::vector<SimTime> finish_ps;  ///< per collective: when its last transfer arrived
  std::vector<network::LinkUsage> links;
  std::uint64_t events = 0;  ///< engine events processed
};

/// How to run: alone (the defaults), or as one process of a partitioned run, which
/// simulates the vertices marked in `local` and talks to the others through `sync`.
struct RunPart {
  core::Synchronizer* sync = nullptr;  ///< nullptr: sequential
  network::LocalVertices local;        ///< empty: every vertex
};

/// How a contention-aware run of `schedule` moves its messages: as flows or as chunks
/// (network.contention; `auto` by the schedule's mean message size).
network::ContentionModel contention_model(const network::NetworkSpec& net, const Schedule& schedule);

/// Executes a schedule on a network. Each transfer is sent from its source chip the moment
/// its dependencies are met, all observed at that chip: a dependency on a transfer the same
/// chip sent is met when its last byte has left (the buffer is free); a dependency on a
/// transfer the chip received is met when its last byte has arrived. Everything starts at 0.
/// Throws SimulationError if a dependency is neither (it could not be observed locally).
ScheduleResult run_schedule(const topology::Topology& topo, const network::NetworkSpec& net,
                            const Schedule& schedule, const RunPart& part = {});

/// Runs schedules; a partitioned implementation (MPI) plugs in here.
class ScheduleExecutor {
 public:
  virtual ~ScheduleExecutor() = default;
  /// The whole result: finish times and the load of every link, whoever simulated them.
  virtual ScheduleResult run(const topology::Topology& topo, const network::NetworkSpec& net,
                             const Schedule& schedule) = 0;
  /// Independent pieces of work (a step's distinct collectives, each lowered and simulated by
  /// `work(i)`, costing about `costs[i]`): every process ends with every piece's result, the
  /// bytes work(i) returned. Here: all of them in order; an MPI executor spreads them over its
  /// processes, each running its pieces' schedules whole. Every process calls it alike.
  virtual std::vector<std::vector<char>> share(const std::vector<double>& costs,
                                               const std::function<std::vector<char>(std::size_t)>& work) {
    std::vector<std::vector<char>> out;
    out.reserve(costs.size());
    for (std::size_t i = 0; i < costs.size(); ++i) out.push_back(work(i));
    return out;
  }
};

/// Runs every schedule in this process.
class SequentialExecutor final : public ScheduleExecutor {
 public:
  ScheduleResult run(const topology::Topology& topo, const network::NetworkSpec& net,
                     const Schedule& schedule) override {
    return run_schedule(topo, net, schedule);
  }
};

}  // namespace podsim::collectives
