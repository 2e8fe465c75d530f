#pragma once

// Internal to config: model and hardware documents (configs/models, configs/hardware).

#include "config/reader.hpp"
#include "hardware/chip_spec.hpp"
#include "workload/model_spec.hpp"

namespace podsim::config {

/// Reads a model (see configs/README.md), filling defaults (kv_heads = heads,
/// head_dim = hidden / heads, serial block, tied embeddings, learned positions, layernorm).
workload::ModelSpec read_model(Reader& r);

/// Reads an accelerator: peaks per dtype, HBM, matmul tile, efficiency constants.
hardware::ChipSpec read_hardware(Reader& r);

}  // namespace podsim::config
