#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hardware/chip_spec.hpp"
#include "parallelism/parallel_spec.hpp"
#include "workload/layer_ops.hpp"
#include "workload/model_spec.hpp"

namespace podsim::memory {

/// HBM one chip needs, by what it holds (bytes).
struct MemoryBreakdown {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;    ///< Adam moments, and master weights when kept separately
  double activations = 0;  ///< what the backward needs, for every microbatch in flight
  double temporary = 0;    ///< logits, gradient buckets, gathered ZeRO-3 layers
  double total = 0;
  double capacity = 0;

  bool fits() const { return total <= capacity; }
};

/// Activations one transformer layer keeps for the backward, per microbatch, on one chip.
///
/// Korthikanti et al. (2022) generalised to GQA and SwiGLU: values that stay whole on every
/// tensor-parallel rank (norm inputs, the attention and MLP inputs, two dropout masks of
/// 1 byte) are divided by tp only with sequence parallelism; Q, K, V, the attention output,
/// the MLP intermediates and the attention scores (softmax output, its dropout mask and
/// output: (2·act + 1)·heads·s²·b) always are. Selective recompute and flash attention drop
/// the scores; full recompute keeps only the layer input. For multi-head attention, a GeLU
/// MLP of 4·hidden and 16-bit activations this is exactly s·b·h·(10 + 24/t + 5·a·s/(h·t))
/// (no sequence parallelism) and s·b·h/t·(34 + 5·a·s/h) (with it).
double layer_activation_bytes(const workload::ModelSpec& model, const workload::Slicing& slicing,
                              parallelism::Recompute recompute);

/// Memory of one chip of every pipeline stage. The microbatches in flight come from the
/// stage's schedule order (GPipe keeps m, 1F1B at most pp − stage).
std::vector<MemoryBreakdown> stage_memory(const workload::ModelSpec& model, const hardware::ChipSpec& chip,
                                          const parallelism::ParallelSpec& parallel,
                                          const parallelism::TrainingSpec& training);

/// Why a layout does not fit: the stage whose chips need the most, against their capacity
/// ("a chip of pipeline stage 0 needs 65.8 GiB of 32.0 GiB"); nothing when every stage fits.
std::optional<std::string> does_not_fit(const std::vector<MemoryBreakdown>& stages);

}  // namespace podsim::memory
