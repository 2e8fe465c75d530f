#pragma once

// HBM one chip of each pipeline stage needs during a training step.
//
// Model state (ZeRO paper, Rajbhandari et al. 2020, Fig. 1; Megatron-LM's distributed
// optimizer table): weights in `params`, gradients in `grads`, Adam's two moments in
// `optimizer`, and a separate master copy in `optimizer` when the weights are stored
// narrower. ZeRO-1 shards the optimizer state (master copy included) over dp, ZeRO-2 the
// gradients too, ZeRO-3 the weights too. Under ZeRO-1/2 with weights stored wider than the
// activations (fp32 weights, bf16 compute) each replica keeps only a 16-bit working copy and
// the fp32 copy is the sharded master (Megatron's distributed optimizer; DeepSpeed ZeRO-1/2).
//
// Activations: what each layer's remat policy keeps (workload/activation_sizes.hpp,
// Korthikanti et al. 2022 generalised), times the layers of every microbatch-chunk the
// stage's schedule holds at once (GPipe m, 1F1B at most pp − stage; each chunk its own
// layer count). Tensors a policy offloads sit in host memory and are reported apart.
//
// Temporary: what one layer's recompute materialises before its backward, the last stage's
// fp32 logits and their gradient, a gradient bucket (ZeRO 0–2) or two gathered layers (ZeRO-3).
//
// Capacity: the chip's HBM minus what the runtime and allocator keep (hbm_reserved_bytes).

#include <optional>
#include <string>
#include <vector>

#include "hardware/chip_spec.hpp"
#include "parallelism/parallel_spec.hpp"
#include "parallelism/pipeline_schedule.hpp"
#include "workload/layer_ops.hpp"
#include "workload/model_spec.hpp"

namespace podsim::memory {

/// HBM one chip needs, by what it holds (bytes).
struct MemoryBreakdown {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;    ///< Adam moments, and master weights when kept separately
  double activations = 0;  ///< what the backward needs, for every microbatch in flight
  double temporary = 0;    ///< recompute working set, logits, gradient buckets, gathered ZeRO-3 layers
  double total = 0;
  double capacity = 0;     ///< usable HBM: capacity minus the hardware's reserve
  double offloaded = 0;    ///< activations in host memory (not part of total)

  bool fits() const { return total <= capacity; }
};

/// Activations one transformer layer keeps in HBM for the backward under `recompute`, per
/// microbatch, on one chip. For multi-head attention, a GeLU MLP of 4·hidden, dropout and
/// 16-bit activations this is Korthikanti's Table 2: s·b·h·(10 + 24/t + 5·a·s/(h·t)) without
/// sequence parallelism, s·b·h/t·(34 + 5·a·s/h) with it, s·b·h·(10 + 24/t) and 34·s·b·h/t
/// with selective recompute, 2·s·b·h with full recompute.
double layer_activation_bytes(const workload::ModelSpec& model, const workload::Slicing& slicing,
                              parallelism::Recompute recompute);

/// Activations one layer keeps in host memory (offloading policies), per microbatch.
double layer_host_bytes(const workload::ModelSpec& model, const workload::Slicing& slicing,
                        parallelism::Recompute recompute);

/// What one layer's recompute brings back into HBM at once before its backward: the needed
/// tensors the policy did not keep (reloaded offloaded ones included); 0 without recompute.
double layer_recompute_bytes(const workload::ModelSpec& model, const workload::Slicing& slicing,
                             parallelism::Recompute recompute);

/// Memory of one chip of every pipeline stage (with `orders`, the stages' pipeline orders
/// taken from there: the planner's many layouts share a few).
std::vector<MemoryBreakdown> stage_memory(const workload::ModelSpec& model, const hardware::ChipSpec& chip,
                                          const parallelism::ParallelSpec& parallel,
                                          const parallelism::TrainingSpec& training,
                                          parallelism::PipelineOrders* orders = nullptr);

/// Why a layout does not fit: the stage whose chips need the most, against their capacity
/// ("a chip of pipeline stage 0 needs 65.8 GiB of 32.0 GiB"); nothing when every stage fits.
std::optional<std::string> does_not_fit(const std::vector<MemoryBreakdown>& stages);

}  // namespace podsim::memory
