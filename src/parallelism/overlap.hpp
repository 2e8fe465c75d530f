#pragma once

#include "hardware/chip_spec.hpp"
#include "parallelism/parallel_spec.hpp"

namespace podsim::parallelism {

/// The overlap a software stack does by default (docs/runtime.md §4), by its family:
/// - XLA (TPUs): collective matmul on (XLA decomposes the tensor-parallel all-gather and
///   reduce-scatter into windowed einsums on TPU); ZeRO-3 gathers one layer ahead (its
///   latency-hiding scheduler overlaps a scanned layer's collectives with the layer before).
/// - Megatron-LM (GPUs): TP communication exposed (--tp-comm-overlap is off by default and needs
///   Transformer Engine's userbuffers); FSDP one layer ahead (PyTorch FSDP's BACKWARD_PRE with
///   limit_all_gathers).
/// Both reduce gradients while the backward runs and end the step with the ZeRO-1/2 weight
/// all-gather (Megatron's --overlap-param-gather is off by default; XLA's step is one program,
/// so the next step's forward cannot start before it ends). GEMMs beside communication keep to
/// the SMs it leaves (gemm_sm_margin) on both: Transformer Engine launches the GEMMs of its
/// overlap with an SM-count target, Megatron-Core's measured H100 runs lose no GEMM wave to
/// their hidden data-parallel traffic, and TPUs move data with DMA engines, not cores.
/// ZeRO-3's outstanding reduce-scatters are the stack's own (StackProfile::fsdp_reduce_limit).
OverlapSpec default_overlap(workload::Stack stack);

}  // namespace podsim::parallelism
