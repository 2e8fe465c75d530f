#pragma once

#include <cstdint>

#include "collectives/schedule_runner.hpp"
#include "partition/communicator.hpp"

namespace podsim::partition {

/// Totals of the partitioned runs an executor did, for benchmarks and reports.
struct ParallelStats {
  std::uint64_t runs = 0;
  std::uint64_t windows = 0;
  std::uint64_t remote_events = 0;  ///< events sent to another process, summed over processes
  std::uint64_t events = 0;         ///< events processed, summed over processes
  SimTime simulated_ps = 0;         ///< simulated time covered, summed over runs
  std::uint64_t shared = 0;         ///< pieces of work spread over the processes (share())
  /// Simulations every process ran whole instead of splitting them: under
  /// network.min_partitioned_transfers, or flows (whose rates are global).
  std::uint64_t whole = 0;
};

/// Runs schedules split over the processes of `comm` (every process calls run() with the
/// same schedule): each simulates its block of chips and their links, and they advance
/// together window by window (MpiSynchronizer). The result — finish times, every link's
/// load — is the same on every process, and the same as a one-process run: event order
/// depends on event keys only, and each link's load is summed by the one process that owns
/// it. Schedules smaller than the network's min_partitioned_transfers are run whole by
/// every process instead: windows would cost more than they save.
class MpiExecutor final : public collectives::ScheduleExecutor {
 public:
  explicit MpiExecutor(const Communicator& comm) : comm_(comm) {}

  collectives::ScheduleResult run(const topology::Topology& topo, const network::NetworkSpec& net,
                                  const collectives::Schedule& schedule) override;
  /// Deals the pieces out by cost (the costliest first, each to the process with the least
  /// so far; ties to the lowest rank), runs this process's own, whole, and exchanges the
  /// results: the same pieces on the same processes whatever the machine's load.
  std::vector<std::vector<char>> share(const std::vector<double>& costs,
                                       const std::function<std::vector<char>(std::size_t)>& work) override;

  const ParallelStats& stats() const { return stats_; }

 private:
  const Communicator& comm_;
  ParallelStats stats_;
  bool sharing_ = false;  ///< inside share(): every run is this process's alone
};

}  // namespace podsim::partition
