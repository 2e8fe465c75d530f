#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config/sweep_config.hpp"
#include "output/table.hpp"
#include "partition/communicator.hpp"
#include "sweep/sweep_point.hpp"

namespace podsim::sweep {

/// How a sweep reports and where it writes.
struct SweepOutput {
  std::filesystem::path file;  ///< HDF5 with the /sweep table (empty: none written, nothing resumed)
  std::string podsim_version;
  std::string command_line;
  bool progress = true;  ///< a progress line on stderr (process 0)
  double flush_seconds = 2;  ///< finished rows reach the file at least this often
  /// More tables for the file, made from the rows finished so far (`podsim whatif`'s /whatif).
  std::function<std::vector<output::Table>(const std::map<std::uint64_t, PointResult>&)> extra_tables;
  bool force = false;  ///< run even beyond kSweepSecondsBudget
};

/// Estimated seconds of simulation a sweep may take per process without --force: the points
/// left to do, each costing kSweepSecondsPerPoint and what the base scenario's step does among
/// many (runtime::repeated_step_seconds); every point is bounded on its own besides (a point beyond
/// the work budget is recorded as infeasible, with the estimate).
inline constexpr double kSweepSecondsBudget = 3600;
/// What a point costs besides its step, on one core: reading its scenario and recording its
/// row (measured 2026-12-06: 10^5 points of the dp-gpt-1.7b example over the host's sample
/// rate ran at 1,000 points/s, of which the step's estimate is 0.15 ms).
inline constexpr double kSweepSecondsPerPoint = 0.85e-3;

/// What a sweep did.
struct SweepSummary {
  std::uint64_t points = 0;
  std::uint64_t resumed = 0;     ///< already in the file from an earlier, interrupted run
  std::uint64_t simulated = 0;   ///< feasible points computed now
  std::uint64_t infeasible = 0;  ///< recorded with a reason, now or before
  double seconds = 0;            ///< wall time of this run
  /// Up to 5 feasible points, best first (process 0): shortest step, or highest tokens/s when
  /// the points train on different numbers of tokens per step (by_throughput).
  std::vector<PointResult> fastest;
  bool by_throughput = false;
  /// When the feasible points span several chip counts: each count's point with the most
  /// tokens per second (the shortest time to train), by chip count.
  std::vector<PointResult> best_per_chip_count;
  std::map<std::uint64_t, PointResult> results;  ///< every point, by index (process 0)
};

/// Runs every point of `sweep` not yet in the output file, spread over the processes of
/// `comm` (process 0 hands out points one at a time and also computes), and writes
/// the /sweep table — one row per point, ordered by index — rewriting the whole file
/// atomically every flush_seconds, so a killed sweep keeps what it finished and the same
/// command resumes it. Throws InputError if the file holds another sweep.
SweepSummary run_sweep(const config::LoadedSweep& sweep, const SweepOutput& output, const partition::Communicator& comm);

/// The resolved configuration a sweep's file records: the sweep and its base scenario.
std::string sweep_config_yaml(const config::LoadedSweep& sweep);

}  // namespace podsim::sweep
