#pragma once

#include <string>

#include "cli/invocation.hpp"

namespace podsim::cli {

/// `podsim validate`: predictions against published measurements.
struct ValidateOptions {
  std::string data;  ///< CSV in the published format; default: the project's own file
  std::string root;  ///< repository root (configs/, topologies/); default: where podsim was built from
  bool json = false;
  std::string explain;  ///< a row id: validate that row alone and print its step as `podsim run` does
  bool cross = false;   ///< leave-one-source-out (validation/cross_validation.hpp)
  bool quiet = false;   ///< --cross: no progress lines on stderr
};

/// Prints predicted vs measured per row, the rows it skipped and why, and the mean absolute
/// percentage error per hardware family and overall.
void run_validate(const ValidateOptions& options, const Invocation& invocation);

}  // namespace podsim::cli
