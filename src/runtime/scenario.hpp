#pragma once

#include <string>

#include "hardware/chip_spec.hpp"
#include "network/network_spec.hpp"
#include "parallelism/parallel_spec.hpp"
#include "topology/topology_spec.hpp"
#include "workload/model_spec.hpp"

namespace podsim::runtime {

/// Everything one training-step simulation needs: what `podsim run` reads from a scenario.
struct Scenario {
  workload::ModelSpec model;
  hardware::ChipSpec chip;
  topology::TopologySpec topology;
  network::NetworkSpec network;
  parallelism::ParallelSpec parallel;
  parallelism::TrainingSpec training;
  bool operator==(const Scenario&) const = default;
};

}  // namespace podsim::runtime
