#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "hardware/chip_spec.hpp"
#include "config/input_record.hpp"
#include "network/network_spec.hpp"
#include "topology/topology_spec.hpp"

namespace podsim::config {

/// What `podsim collective` was given on its command line, as typed.
struct CollectiveArgs {
  std::string topology_file;
  /// The chip's file (--hardware, resolved): its link efficiencies scale the topology's links,
  /// as `run` and `validate` scale them. Empty: links at their nominal bandwidth.
  std::filesystem::path hardware_file;
  std::string op = "all-reduce";
  std::string algorithm = "auto";
  std::string protocol = "auto";
  std::string axes = "all";
  std::string sizes = "1KiB..1GiB";
  std::string network = "analytical";
  std::vector<std::string> sets;  ///< --set key.path=value, paths from the composed root
};

/// A validated `podsim collective` request.
struct CollectiveRequest {
  /// The topology as `run` times it: with --hardware, each link at the chip's efficiency.ici
  /// (fast tier) or efficiency.dcn (slow tier) of its nominal bandwidth.
  topology::TopologySpec topology;
  /// The chip given with --hardware, whose efficiencies scale the links.
  std::optional<hardware::ChipSpec> chip;
  network::NetworkSpec network;
  collectives::Op op = collectives::Op::kAllReduce;
  collectives::Algorithm algorithm = collectives::Algorithm::kAuto;
  collectives::Protocol protocol = collectives::Protocol::kAuto;  ///< NCCL clusters only
  std::vector<std::string> axes;     ///< axis names (all of them for "all")
  std::vector<std::uint64_t> sizes;  ///< bytes, in the order given
  /// The resolved request: {topology: …, [hardware: …,] network: …, collective: …}.
  std::string resolved_yaml;
  /// Every file read (the topology, the slice it includes, the hardware).
  std::vector<InputRecord> inputs;
};

/// Validates everything before any simulation starts. Errors name the flag or the
/// topology file, line and key, e.g. "--op allreduce: collective.op: unknown value …".
CollectiveRequest load_collective_request(const CollectiveArgs& args);

/// Sizes from "1KiB,4MiB,1GiB" or "1KiB..1GiB" (every power of two between, inclusive)
/// or a mix "1KiB..1MiB,1GiB". Throws InputError.
std::vector<std::uint64_t> parse_sizes(const std::string& text);

}  // namespace podsim::config
