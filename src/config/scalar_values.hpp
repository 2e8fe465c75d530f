#pragma once

#include <map>
#include <string>

namespace podsim::config {

/// Every scalar of a resolved configuration (YAML text, as outputs store it), by its dotted
/// key path: {"hardware.peak.bf16": "275 TFLOP/s", "training.micro_batch": "4", …}.
/// Sequences are left out (no key path names one element). What `podsim whatif` varies.
std::map<std::string, std::string> scalar_values(const std::string& resolved_yaml);

}  // namespace podsim::config
