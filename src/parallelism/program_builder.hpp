#pragma once

#include "hardware/chip_spec.hpp"
#include "parallelism/parallel_spec.hpp"
#include "parallelism/step_program.hpp"
#include "workload/layer_ops.hpp"
#include "workload/model_spec.hpp"

namespace podsim::parallelism {

/// Checks that the layout can run on `chips` chips of `chip`: dp·tp·pp = chips, tp divides
/// heads and ffn_hidden (and seq_len with sequence parallelism), pp·virtual_stages divides
/// the layers, the batch divides into microbatches, the interleaved schedule has a
/// multiple of pp microbatches, the chip has the compute dtype. Throws LayoutError naming
/// the scenario key at fault.
void check_layout(const workload::ModelSpec& model, const hardware::ChipSpec& chip,
                  const ParallelSpec& parallel, const TrainingSpec& training, std::uint32_t chips);

/// How one chip slices a layer's work under this layout: the micro batch, the sequence,
/// tp, sequence parallelism (only with tp > 1), flash attention, the activations dtype and
/// the width of saved GEMM inputs (1 byte with fp8 GEMMs).
workload::Slicing slicing_of(const ParallelSpec& parallel, const TrainingSpec& training);

/// Whether build_step merges compute runs (fuse_compute_runs): always, but for the test that
/// shows merging changes no time.
enum class ComputeRuns { kFused, kEveryTask };

/// Builds the program of every pipeline stage for one training step (see StepPlan).
/// Compute durations come from the chip's roofline model; communication is left to the
/// runtime (it depends on the network).
/// `held_microbatches` > 0: the programs hold that many microbatches instead of the step's
/// (a shorter step of the same shape, whose repeating middle the executor lengthens:
/// runtime/short_programs.hpp); the plan's tokens and model FLOPs stay the step's.
StepPlan build_step(const workload::ModelSpec& model, const hardware::ChipSpec& chip,
                    const ParallelSpec& parallel, const TrainingSpec& training,
                    ComputeRuns runs = ComputeRuns::kFused, int held_microbatches = 0);

/// The buffer of each tensor-parallel collective (S, nccl-tests sense): the whole b·s·h
/// activation of a microbatch in the communication dtype.
double tp_buffer_bytes(const workload::ModelSpec& model, const TrainingSpec& training);

/// Parameters one chip of pipeline `stage` holds (÷ tp; before any ZeRO sharding): its
/// layers, plus the input embedding on the first virtual stage and the output projection
/// and final norm on the last (a tied projection on another stage than the embedding is
/// a second copy, as in Megatron-LM).
double stage_param_count(const workload::ModelSpec& model, const ParallelSpec& parallel, int stage);

/// Bytes the optimizer step reads and writes per parameter it updates (Adam: gradient,
/// two moments, master weights, and the weights in their stored dtype when the master copy
/// is separate, or the 16-bit working copy under ZeRO-1/2).
double optimizer_bytes_per_param(const Precision& p, int zero);

/// True when, under ZeRO-1/2, the stored weights are wider than the activations dtype: then
/// (Megatron's distributed optimizer, DeepSpeed ZeRO-1/2 in bf16/fp16) each replica keeps a
/// 16-bit working copy of the weights, and the wide master copy is sharded with the optimizer
/// state.
bool working_weight_copy(const Precision& p, int zero);

/// True when the weights are stored narrower than the optimizer's dtype, so the
/// optimizer keeps a separate master copy (mixed precision à la Megatron and ZeRO).
bool separate_master_weights(const Precision& p);

}  // namespace podsim::parallelism
