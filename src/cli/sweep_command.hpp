#pragma once

#include <string>

#include "cli/invocation.hpp"

namespace podsim::cli {

/// `podsim sweep SWEEP.yaml -o results.h5`: every point of a sweep, spread over the
/// processes, one row each in the /sweep table of the output file.
struct SweepOptions {
  std::string file;
  std::string output_file;
  bool quiet = false;  ///< no progress line
  bool force = false;  ///< --force: beyond the sweep's work budget
  double flush_seconds = 2;  ///< how often finished rows are written
};

/// Runs (or resumes) the sweep and prints a summary with the fastest feasible points.
void run_sweep_command(const SweepOptions& options, const Invocation& invocation);

}  // namespace podsim::cli
