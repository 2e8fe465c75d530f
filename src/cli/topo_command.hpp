#pragma once

#include <string>
#include <vector>

#include "cli/invocation.hpp"

namespace podsim::cli {

/// `podsim topo FILE`: chips, links, diameter, bisection and per-axis ring bandwidth.
struct TopoOptions {
  std::string file;
  bool json = false;
  std::vector<std::string> sets;
};

/// Prints the facts of the topology to stdout (as one JSON object with `json`).
void run_topo(const TopoOptions& options, const Invocation& invocation);

}  // namespace podsim::cli
