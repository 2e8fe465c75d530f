#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hardware/chip_spec.hpp"
#include "hardware/dtype.hpp"
#include "topology/device_mesh.hpp"
#include "util/error.hpp"
#include "workload/host_dispatch.hpp"
#include "workload/stack_profile.hpp"
#include "workload/loss_kernels.hpp"
#include "workload/remat_policy.hpp"

namespace podsim::parallelism {

enum class PipelineSchedule { kGPipe, kOneFOneB, kInterleaved };
/// Recompute (remat) policies live with the layer's ops (workload/remat_policy.hpp).
using workload::Recompute;
using workload::recompute_name;
inline constexpr std::array<PipelineSchedule, 3> kSchedules{PipelineSchedule::kGPipe, PipelineSchedule::kOneFOneB,
                                                            PipelineSchedule::kInterleaved};
/// The three Megatron levels, ordered by how much they recompute (the planner searches these;
/// scenarios may name any of workload::kRematPolicies).
inline constexpr std::array<Recompute, 3> kRecomputes{Recompute::kNone, Recompute::kSelective, Recompute::kFull};

/// How the chips split the work (the `parallelism:` section of a scenario).
struct ParallelSpec {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  PipelineSchedule schedule = PipelineSchedule::kOneFOneB;
  int virtual_stages = 1;  ///< model chunks per stage (interleaved 1F1B)
  /// Interleaved 1F1B: microbatches run through a chunk together before the next chunk (N,
  /// Megatron-Core's --microbatch-group-size-per-virtual-pipeline-stage; the Llama 3 paper's
  /// tunable N). 0: pp, Megatron-LM's fixed grouping.
  int microbatch_group = 0;
  int zero = 0;            ///< ZeRO stage 0..3 (3 = FSDP)
  /// Hybrid sharding: the data-parallel replicas one ZeRO group shards weights, gradients and
  /// optimizer state over; the dp / zero_group groups keep replicas of it and all-reduce their
  /// gradient shards (PyTorch FSDP's HYBRID_SHARD, MaxText's ici_fsdp × dcn_data_parallelism,
  /// Megatron-LM's --num-distributed-optimizer-instances). 0: all dp replicas (one group).
  int zero_group = 0;
  bool sequence_parallel = false;
  /// Transformer layers of each virtual stage (pp × virtual_stages entries, virtual stage
  /// chunk × pp + stage), or of each pipeline stage (pp entries, each split evenly over its
  /// chunks); empty: split as Megatron-LM does (stage_layers.hpp).
  std::vector<int> stage_layers;
  int first_stage_layers = -1;  ///< Megatron's --decoder-first-pipeline-num-layers (-1: not given)
  int last_stage_layers = -1;   ///< Megatron's --decoder-last-pipeline-num-layers (-1: not given)
  bool account_for_embedding = false;  ///< Megatron's --account-for-embedding-in-pipeline-split
  bool account_for_loss = false;       ///< Megatron's --account-for-loss-in-pipeline-split
  /// Logical axis ("dp", "tp", "pp") → physical axes it should take first, in order.
  std::map<std::string, std::vector<std::string>> mesh;
  bool operator==(const ParallelSpec&) const = default;
};

/// Number formats of the step (mixed precision), per tensor class as Transformer Engine
/// splits them for fp8: the linear layers' GEMMs run in `compute`; the attention core,
/// element-wise ops, embedding and head, and saved activations other than GEMM inputs, in
/// the activations dtype.
struct Precision {
  hardware::DType compute = hardware::DType::kBf16;    ///< linear-layer GEMMs; sets the MFU peak
  hardware::DType params = hardware::DType::kFp32;     ///< stored (master) weights
  hardware::DType grads = hardware::DType::kBf16;      ///< stored gradients
  hardware::DType optimizer = hardware::DType::kFp32;  ///< Adam moments (and master weights)
  hardware::DType comm = hardware::DType::kBf16;       ///< what collectives move
  /// Activations and everything but the linear GEMMs; unset: `compute` when it is 16 or 32
  /// bits, bf16 when it is 8 bits (Transformer Engine keeps them in bf16).
  std::optional<hardware::DType> activations;
  bool fp8_attention = false;  ///< the attention core's matmuls in fp8 too (TE recipe fp8_dpa; off by default)
  /// Data-parallel gradient reductions (Megatron-LM with bf16 reduces in fp32; FSDP's
  /// MixedPrecision.reduce_dtype); unset: `comm`.
  std::optional<hardware::DType> reduce;
  /// The logits, the loss and their gradient: fp32 where the loss is computed in fp32 (Megatron's
  /// cross entropy on a float copy, PyTorch autocast's fp32 cross_entropy, MaxText's fp32
  /// logits); the activations dtype in pure 16-bit training (no autocast).
  hardware::DType loss = hardware::DType::kFp32;
  bool operator==(const Precision&) const = default;
};

/// The activations dtype of `p` (see Precision::activations).
hardware::DType activation_dtype(const Precision& p);
/// The dtype data-parallel gradient reductions move (see Precision::reduce).
hardware::DType reduce_dtype(const Precision& p);
/// The dtype the attention core's matmuls run in.
hardware::DType attention_dtype(const Precision& p);

/// Hosts feeding the first pipeline stage.
struct InputPipelineSpec {
  double samples_per_s = 0;  ///< per data-parallel replica; 0 = data is always ready
  int prefetch = 2;          ///< microbatches buffered ahead
  bool operator==(const InputPipelineSpec&) const = default;
};

/// How tensor-parallel communication meets the matmuls it serves.
enum class TpOverlap : std::uint8_t {
  kNone,              ///< every TP collective blocks the compute stream (Megatron-LM's default)
  kCollectiveMatmul,  ///< all-gather / reduce-scatter decomposed into tp steps overlapped with the
                      ///< adjacent matmul (XLA's collective matmul; Megatron's --tp-comm-overlap)
};
inline constexpr std::array<TpOverlap, 2> kTpOverlaps{TpOverlap::kNone, TpOverlap::kCollectiveMatmul};
/// "none", "collective-matmul" — as written in scenarios.
const char* tp_overlap_name(TpOverlap o);

/// What communication runs beside compute (the `training.overlap:` section; docs/runtime.md §4).
/// Defaults follow the chip's software stack (default_overlap).
struct OverlapSpec {
  TpOverlap tp = TpOverlap::kNone;
  /// ZeRO-1/2: the updated weights' all-gather runs during the next step's forward, each layer
  /// waiting only for its own weights (Megatron-LM's --overlap-param-gather with the distributed
  /// optimizer); off: it ends the step.
  bool param_gather = false;
  /// ZeRO-3: how many layers' parameter gathers may run ahead of the layer computing (PyTorch
  /// FSDP's backward_prefetch with limit_all_gathers, XLA's latency-hiding scheduler: 1). 0: each
  /// layer gathers its parameters only when the previous one has finished.
  int fsdp_prefetch = 1;
  /// ZeRO-3: how many gradient reduce-scatters may be outstanding when the backward issues the
  /// next: before it does, the compute stream waits for the one fsdp_reduce_limit back (XLA's
  /// latency-hiding scheduler, FSDP2: 1; workload/stack_profile.cpp). 0: no limit, they queue
  /// behind the compute and the step's end waits for them (PyTorch FSDP1).
  int fsdp_reduce_limit = 0;
  /// Reduce gradient buckets while the backward runs, each when its last gradient is final
  /// (DDP, Megatron-LM's --overlap-grad-reduce); off: all after the backward.
  bool dp_reduce = true;
  /// The data-parallel gathers and reductions run one at a time, in the order they became
  /// ready: NCCL runs the kernels of one communicator in launch order whatever stream they are
  /// launched on (enqueue.cc), and PyTorch FSDP, DDP and Megatron-LM issue both on the one
  /// data-parallel process group. Off: the two streams run side by side (XLA).
  bool dp_serial = false;
  /// GEMMs that run beside communication are launched on the SMs it leaves them (cuBLASLt's
  /// SM-count target: Transformer Engine's userbuffers overlap, NVTE_EXT_MARGIN_SM; PyTorch's
  /// later sm_carveout). Off: launched on all SMs, so on a chip with persistent GEMM grids
  /// (ChipSpec::persistent_matmuls) the CTAs that find their SM taken run as a second wave.
  bool gemm_sm_margin = true;
  bool operator==(const OverlapSpec&) const = default;
};

/// How the framework issues ZeRO-3's collectives (`training.zero3_collectives`;
/// parallelism/zero3_collectives.hpp has what each does and its sources).
enum class Zero3Collectives : std::uint8_t {
  kFlat,       ///< one all-gather and one reduce-scatter per layer, on flat buffers, beside the
               ///< compute (PyTorch FSDP, XLA, DeepSpeed from 0.5.5)
  kPerTensor,  ///< one synchronous collective per parameter tensor on lists of dp shards
               ///< (DeepSpeed's ZeRO-3 before 0.5.5, 2021)
};
inline constexpr std::array<Zero3Collectives, 2> kZero3Collectives{Zero3Collectives::kFlat,
                                                                   Zero3Collectives::kPerTensor};
/// "flat", "per-tensor" — as written in scenarios.
const char* zero3_collectives_name(Zero3Collectives z);

/// How failures stretch a training run (`training.failures`; runtime/time_to_train.hpp).
struct FailureSpec {
  double chip_mtbf_s = 0;  ///< mean time between failures of one chip; the job's is this ÷ its chips
  double checkpoint_s = 0;  ///< the job stops this long to write a checkpoint
  double restart_s = 0;     ///< from a failure to training again, reloading the checkpoint included
  double interval_s = 0;    ///< between checkpoints; 0: Young's optimum √(2 · checkpoint · job MTBF)
  bool operator==(const FailureSpec&) const = default;
};

/// The step to simulate (the `training:` section of a scenario).
struct TrainingSpec {
  int global_batch = 1;  ///< sequences per step
  int micro_batch = 1;   ///< sequences per microbatch per data-parallel replica
  int seq_len = 2048;
  Recompute recompute = Recompute::kNone;
  Precision precision;
  bool flash_attention = false;
  /// Which fused-attention kernel runs it (with flash_attention): the chip's own, or MPT's Triton one.
  hardware::FlashKernel flash_kernel = hardware::FlashKernel::kNative;
  /// How the cross-entropy runs: the chip's software stack's unless the scenario says
  /// (workload::stack_profile; workload/loss_kernels.hpp).
  workload::LossKernel loss_kernel = workload::LossKernel::kMegatron;
  /// Train metrics evaluated on each microbatch's logits, each a forward-only loss
  /// (workload::train_metrics_bytes): 0 in Megatron-LM and MaxText, 2 in llm-foundry's MPT.
  int train_metrics = 0;
  double dp_bucket_bytes = 25e6;  ///< gradient-reduction bucket
  Zero3Collectives zero3_collectives = Zero3Collectives::kFlat;
  OverlapSpec overlap;
  InputPipelineSpec input;
  /// Host time per dispatcher call and per kernel launch (`training.host`): eager PyTorch's on
  /// GPUs, nothing where a compiled program or a CUDA graph issues the step
  /// (workload::stack_profile).
  workload::HostCost host;
  /// The software that trains (`training.stack`), whose profile gave the defaults above.
  workload::Stack stack = workload::Stack::kMegatronLm;
  /// Tokens the whole run trains on (`training.tokens`); 0: not given. With it, run, plan and
  /// sweeps report the time to train (runtime/time_to_train.hpp).
  double tokens = 0;
  std::optional<FailureSpec> failures;  ///< `training.failures`: none when not given
  bool operator==(const TrainingSpec&) const = default;
};

/// A layout that cannot run. `key` is the scenario key path at fault (e.g.
/// "parallelism.tp"), so config can point at its file and line.
class LayoutError : public InputError {
 public:
  LayoutError(std::string key, const std::string& message) : InputError(message), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

/// "gpipe", "1f1b", "interleaved" — as written in scenarios and outputs.
const char* schedule_name(PipelineSchedule s);
/// "no pipeline", "GPipe", "1F1B", "interleaved 1F1B" — for people.
const char* schedule_label(const ParallelSpec& p);

/// The logical axes of a layout as DeviceMesh requests, in placement order: tensor
/// parallelism first (most traffic), then data, then pipeline, each with its `mesh:` preferences.
std::vector<topology::LogicalAxisRequest> mesh_requests(const ParallelSpec& p);
/// The replicas one ZeRO group shards over: zero_group under hybrid sharding, else dp.
int zero_shard(const ParallelSpec& p);
/// What the output tables call `zero_group`: the replicas the ZeRO state is divided among
/// (zero_shard), 1 with ZeRO off.
int zero_state_group(const ParallelSpec& p);
/// Hybrid sharding: ZeRO on and its groups smaller than dp (a "dp_replica" mesh axis joins them).
bool hybrid_shard(const ParallelSpec& p);

/// Microbatches per step: global_batch / (dp × micro_batch). Throws LayoutError.
int microbatches(const ParallelSpec& p, const TrainingSpec& t);

}  // namespace podsim::parallelism
