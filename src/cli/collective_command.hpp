#pragma once

#include <string>

#include "cli/invocation.hpp"
#include "config/collective_config.hpp"

namespace podsim::cli {

/// `podsim collective`: nccl-tests for a simulated pod.
struct CollectiveOptions {
  config::CollectiveArgs args;
  std::string hardware;  ///< --hardware: a file, or a name in configs/hardware
  std::string output_file;  ///< -o: HDF5 file with the /collectives table
  bool json = false;
  bool stats = false;  ///< report the partitioned simulations on stderr
  bool force = false;  ///< simulate even beyond the work budget
};

/// Times the collective at every size; prints a table (or JSON) and writes the HDF5 file.
void run_collective(const CollectiveOptions& options, const Invocation& invocation);

}  // namespace podsim::cli
