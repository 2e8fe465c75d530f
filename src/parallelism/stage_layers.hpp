#pragma once

// How a model's transformer layers are split over pipeline stages, as Megatron-LM does it
// (NVIDIA/Megatron-LM megatron/core/transformer/transformer_block.py,
// get_num_layers_to_build, and transformer_layer.py, get_transformer_layer_offset):
//
// - `stage_layers` given (Megatron's pipeline_model_parallel_layout): exactly those counts,
//   one per virtual stage, or one per pipeline stage split evenly over its model chunks.
// - `first_stage_layers` / `last_stage_layers` (--decoder-first/last-pipeline-num-layers):
//   those stages get that many; the remaining layers are divided evenly over the other
//   stages (Megatron asserts they divide). With interleaving every stage's count is split
//   evenly over its chunks.
// - `account_for_embedding` / `account_for_loss` (--account-for-*-in-pipeline-split): the
//   embedding (loss) counts as one more layer; layers + those must divide by pp, and the
//   first (last) virtual stage builds one transformer layer fewer.
// - nothing given: an even split when pp × virtual_stages divides the layers (Megatron's
//   default). Otherwise the embedding and the loss are counted as a layer each — Megatron's
//   two account-for options, which is also what the Llama 3 team did ("we reduce one
//   Transformer layer each from the first and the last stages", Dubey et al. 2024, §3.3.2:
//   126 layers on 16 stages = 7, 14 × 8, 7) and BLOOM's Megatron-DeepSpeed partition
//   (70 layers on 12 stages with the embeddings on the first and last: 5, 10 × 6, 5). When even
//   that does not divide, the layers + 2 are spread as evenly as possible, the extra ones on
//   the middle stages, and the first and last stages give one back each — without interleaving
//   only: Megatron requires each stage's layers to divide over its model chunks.
//
// Virtual stage vs = chunk × pp + stage holds a contiguous range of layers, in vs order.

#include <vector>

#include "parallelism/parallel_spec.hpp"
#include "workload/model_spec.hpp"

namespace podsim::parallelism {

/// Transformer layers of every virtual stage (pp × virtual_stages entries, index
/// chunk × pp + stage). Throws LayoutError naming the key at fault (parallelism.stage_layers,
/// first_stage_layers, last_stage_layers, pp, virtual_stages).
std::vector<int> virtual_stage_layers(const workload::ModelSpec& model, const ParallelSpec& parallel);

/// Transformer layers each pipeline stage holds (over all its chunks).
std::vector<int> pipeline_stage_layers(const workload::ModelSpec& model, const ParallelSpec& parallel);

/// True when every virtual stage holds the same number of layers.
bool uniform_stages(const std::vector<int>& layers);

}  // namespace podsim::parallelism
