#pragma once

#include <string>
#include <vector>

#include "cli/invocation.hpp"

namespace podsim::cli {

/// `podsim plan --model M --hardware H --topology T --global-batch B`: every layout of the
/// chips, ranked.
struct PlanOptions {
  std::string model;     ///< a model file, or a name in configs/models
  std::string hardware;  ///< a hardware file, or a name in configs/hardware
  std::string topology;  ///< a topology file, or a name in topologies
  int global_batch = 0;
  int seq_len = 0;  ///< 0: the model's
  std::size_t top = 10;
  std::size_t contention_top = 10;
  std::vector<int> micro_batches{1, 2, 4, 8, 16};
  double memory_headroom = 0.05;  ///< share of HBM a recommended layout leaves free
  std::string output_file;
  bool json = false;
  bool quiet = false;
  bool force = false;    ///< --force: beyond the plan's work budget (--exhaustive)
  bool exhaustive = false;  ///< --exhaustive: simulate every layout, prune none
  std::vector<std::string> sets;  ///< overrides of the base scenario (not of what the plan chooses)
  std::string root;               ///< where names are looked up (default: the source tree)
  /// --emit N: print the N-th ranked layout as a scenario `podsim run` takes (0: the table).
  std::size_t emit = 0;
  /// --max-simulations N: stop the search after N layouts simulated and answer with the best so
  /// far (0: no limit).
  std::size_t max_simulations = 0;
};

/// Returns the exit code: kExitOk, or kExitInterrupted when Ctrl-C stopped the search (the best
/// layouts so far are printed, and written with -o, all the same).
int run_plan_command(const PlanOptions& options, const Invocation& invocation);

}  // namespace podsim::cli
