#pragma once

#include <string>
#include <vector>

#include "cli/invocation.hpp"

namespace podsim::cli {

/// `podsim run SCENARIO.yaml`: one training step, its breakdown and metrics.
struct RunOptions {
  std::string file;
  std::string output_file;  ///< -o: HDF5 with /summary, /breakdown, /memory, /links
  bool json = false;
  bool stats = false;  ///< report the partitioned simulations on stderr
  bool allow_oom = false;   ///< report a layout that does not fit in HBM without failing
  bool force = false;       ///< simulate a step beyond the work budget (parallelism::kTaskBudget)
  std::vector<std::string> sets;
  std::string trace_file;          ///< --trace: Chrome trace-event JSON of the step's timeline
  std::vector<int> trace_stages;   ///< --trace-stages: only these pipeline stages (empty: all)
  std::size_t trace_max_events = 1'000'000;
  bool timeline = false;           ///< --timeline: the /timeline table in the -o file
};

/// Prints the report (or JSON) and writes the file. A layout that does not fit in memory
/// is still reported, then fails (SimulationError) unless allow_oom.
void run_scenario(const RunOptions& options, const Invocation& invocation);

}  // namespace podsim::cli
