#pragma once

// The host's side of issuing a step (docs/runtime.md, "The host"). In eager PyTorch every
// tensor operation passes through the dispatcher and autograd, and every kernel through the
// CUDA launch path, before the GPU sees it; when kernels are short (small models, micro batch
// 1, wide tensor parallelism) the GPU waits for the host. XLA runs a compiled program and CUDA
// graphs replay a captured one: their host cost per op is nil.
//
// The model: each work item makes `host_calls` dispatcher calls and launches `kernels`
// kernels (workload::WorkItem; count_host_calls counts them in Megatron-LM's code), each at
// the cost of training.host; a run of items lasts the longer of its GPU time and its host time
// (parallelism::time_segments).

#include "hardware/chip_spec.hpp"
#include "util/sim_time.hpp"

namespace podsim::workload {

struct LayerWork;

/// Host time per call and per kernel (`training.host`).
struct HostCost {
  SimTime dispatch_ps = 0;  ///< one call through PyTorch's dispatcher (with autograd)
  SimTime launch_ps = 0;    ///< one CUDA kernel launch
  bool any() const { return dispatch_ps > 0 || launch_ps > 0; }
  bool operator==(const HostCost&) const = default;
};

/// Eager PyTorch on a GPU, host time only (docs/runtime.md, "The host"):
/// - dispatch 1 µs: an ATen op through the C++ dispatcher "about a microsecond" (N. Gimelshein,
///   pytorch/pytorch issue 41383, 2020-07-14); aten::view 1.3 µs per call in a torch.profiler
///   table (turboderp/exllama issue 19, 2023-06-03, profiler overhead included).
/// - launch 4 µs: cudaLaunchKernel 3.2–3.4 µs (H100) and 5.6 µs per call in torch.profiler
///   tables (turboderp/exllama issues 29 and 19, 2023); "4 us per op on CUDA" (A100,
///   PyTorch 1.12: pytorch/pytorch issue 82793, 2022-08-04).
/// Python's own time in the framework's modules (argument handling, hooks, context managers)
/// is not counted: an eager step's host time is at least this.
inline constexpr HostCost kEagerPytorch{1'000'000, 4'000'000};

/// Sets each item of a transformer layer to what Megatron-LM's code makes it do on the host
/// (host_dispatch.cpp has the count, item by item, and where it comes from).
void count_host_calls(LayerWork& layer);

}  // namespace podsim::workload
