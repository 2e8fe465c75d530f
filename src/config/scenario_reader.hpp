#pragma once

// Internal to config: the parallelism, training and network parts of a scenario document.

#include "config/reader.hpp"
#include "hardware/chip_spec.hpp"
#include "network/network_spec.hpp"
#include "parallelism/parallel_spec.hpp"
#include "workload/model_spec.hpp"

namespace podsim::config {

/// `parallelism:`; dp may be left out and is then chips / (tp × pp).
parallelism::ParallelSpec read_parallelism(Reader& r, std::uint32_t chips);

/// `training:`; seq_len defaults to the model's.
parallelism::TrainingSpec read_training(Reader& r, const workload::ModelSpec& model, const hardware::ChipSpec& chip);

/// `network:` (a word like `contention` is expanded to {model: contention} on loading).
network::NetworkSpec read_network_choice(Reader& parent);

}  // namespace podsim::config
