#pragma once

// How a framework issues ZeRO-3's collectives, block by block (a transformer layer, the
// embedding, the output head): training.zero3_collectives.
//
// flat — PyTorch FSDP (one FlatParameter per wrapped layer), XLA's sharded weights, DeepSpeed
// from 0.5.5: one all-gather of the block's parameters before its forward, one before its
// backward (serving the recompute too), one reduce-scatter of its gradients, each on its own
// stream beside the compute (training.overlap.fsdp_prefetch). program_builder.cpp builds it.
//
// per-tensor — DeepSpeed's ZeRO-3 from 0.3.13 (March 2021) to 0.5.4 (deepspeed/runtime/zero/
// partition_parameters.py and stage3.py at v0.3.16):
// - one torch.distributed.all_gather per parameter tensor when its module runs
//   (_allgather_param), one reduce_scatter per tensor's gradient (_reduce_scatter_gradient);
// - on lists of dp shards: PyTorch's ProcessGroupNCCL (1.8) copies each of the dp shards out of
//   (all-gather) or into (reduce-scatter) its flat buffer, one copy_ each — dp operations per
//   collective (list_copies_ps). DeepSpeed's #1188 (v0.5.5) moved to _all_gather_base for this;
// - synchronous: every all-gather calls torch.cuda.synchronize() and every fetch waits for the
//   device ("the async version is not async at all", #1188), so gathers and reductions take
//   turns with the compute: they run on the compute stream;
// - a tensor under stage3_param_persistence_threshold (10^5 elements) stays whole after the
//   first step and is never gathered (its gradient is still reduced);
// - a tensor used again within stage3_max_reuse_distance (10^9 elements of other parameters'
//   uses) stays gathered.

#include <span>
#include <vector>

#include "hardware/chip_spec.hpp"
#include "util/sim_time.hpp"
#include "workload/model_spec.hpp"

namespace podsim::parallelism {

struct ParallelSpec;
struct TrainingSpec;

/// DeepSpeed's stage3_param_persistence_threshold default (deepspeed/runtime/zero/constants.py).
inline constexpr double kPersistenceThreshold = 1e5;
/// DeepSpeed's stage3_max_reuse_distance default (deepspeed/runtime/zero/constants.py).
inline constexpr double kMaxReuseDistance = 1e9;

/// The per-tensor collectives of one block, as element counts per chip, in issue order.
struct PerTensorCalls {
  std::vector<double> forward;    ///< all-gathers before the forward
  std::vector<double> recompute;  ///< all-gathers before the recompute forward
  std::vector<double> backward;   ///< all-gathers before the backward
  std::vector<double> reduce;     ///< reduce-scatters of the gradients
};

/// The per-tensor collectives of a block whose parameter tensors are `tensors` (forward order,
/// elements per chip). `adjacent`: the block's backward follows its own forward pass directly
/// (a recomputed layer, the output head), so a tensor stays gathered when twice the elements
/// used after it in the block (its later neighbours' forward and backward) are under
/// kMaxReuseDistance; otherwise the rest of the model lies between, and the backward gathers
/// every tensor again. `recomputed`: the block runs a recompute forward, which gathers.
PerTensorCalls per_tensor_calls(std::span<const double> tensors, bool adjacent, bool recomputed);

/// The per-tensor collectives of every block of a step.
struct PerTensorPlan {
  PerTensorCalls layer;
  PerTensorCalls embedding;
  PerTensorCalls head;
};

/// The per-tensor collectives of `model` split over `tp`, whose embedding and head hold
/// `embedding_params` and `head_params` per chip on their stages: a layer's tensors as
/// workload::layer_param_tensors lists them; the embedding's table, then learned positions; the
/// head's final norm (weight, bias), then its projection when the stage holds one.
/// `recompute_gathers`: the recompute forward re-runs linear layers, so it fetches their weights.
PerTensorPlan per_tensor_plan(const workload::ModelSpec& model, int tp, double embedding_params,
                              double head_params, bool recompute_gathers);

/// FSDP's sharding (ZeRO-3 on flat collectives, or ZeRO-2 as SHARD_GRAD_OP) whose pipeline
/// stages gather their parameters once a step (data and pipeline parallelism, and a stack that
/// runs it so: StackProfile::fsdp_pipeline_gathers_once): the first forward of each block
/// gathers it, nothing gathers again, gradients accumulate whole in the reduction's dtype and
/// are reduce-scattered block by block after the stage's last backward. Otherwise FSDP gathers
/// and reduce-scatters in every microbatch.
bool fsdp_gathers_once(const ParallelSpec& parallel, const TrainingSpec& training);

/// What a list-form collective of `bytes` on `dp` chips costs beside its transfer: dp copies,
/// each one of the chip's operations (hardware::op_time: its per-op overhead, and its shard
/// read and written through HBM).
SimTime list_copies_ps(int dp, double bytes, const hardware::ChipSpec& chip);

}  // namespace podsim::parallelism
