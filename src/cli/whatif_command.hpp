#pragma once

#include <string>
#include <vector>

#include "cli/invocation.hpp"

namespace podsim::cli {

/// `podsim whatif SCENARIO.yaml`: each hardware and software knob varied alone, the
/// elasticity of the step time to each, and which knob buys most.
struct WhatifOptions {
  std::string file;
  std::vector<std::string> knobs;  ///< --knobs: keys to vary (default: docs/whatif.md)
  std::string step = "10%";        ///< --step: how far continuous knobs move, each way
  std::vector<std::string> sets;
  std::string output_file;
  bool replan = false;  ///< --replan: the best layout of every variant too
  bool json = false;
  bool quiet = false;
};

void run_whatif_command(const WhatifOptions& options, const Invocation& invocation);

}  // namespace podsim::cli
