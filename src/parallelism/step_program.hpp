#pragma once

#include <cstdint>
#include <string_view>
#include <initializer_list>
#include <limits>
#include <span>
#include <vector>

#include "util/sim_time.hpp"

namespace podsim::parallelism {

/// What a task does.
enum class TaskKind : std::uint8_t {
  kCompute,     ///< runs for duration_ps on the chip
  kCollective,  ///< a collective on its stream; on the compute stream it blocks compute
  kSend,        ///< a pipeline message to another stage (its own stream)
  kRecv,        ///< the compute stream waits for a pipeline message
  kInput,       ///< the compute stream waits for the host's next microbatch
  kWait,        ///< the compute stream waits for its dependencies (e.g. gradient reduction)
};

/// Tasks of one stream run one at a time, in program order; streams run side by side.
/// kTp carries the tensor-parallel collectives a collective matmul overlaps with compute (the
/// others run on the compute stream).
enum class Stream : std::uint8_t { kCompute, kDpReduce, kDpGather, kPpForward, kPpBackward, kOther, kTp };
inline constexpr int kStreams = 7;
/// "compute", "dp reduce", "dp gather", "pp forward", "pp backward", "other comm", "tp comm".
std::string_view stream_name(Stream stream);

/// What a compute task is doing (the compute.* time categories).
enum class ComputeCategory : std::uint8_t { kForward, kBackward, kRecompute, kOptimizer };

/// Which parallelism a communication serves (the comm.* time categories). kDp runs in the
/// data-parallel (ZeRO) group; kDpReplica across the replicas of hybrid sharding's groups
/// (ParallelSpec::zero_group), which counts as data-parallel time too.
enum class CommAxis : std::uint8_t { kTp, kDp, kPp, kOther, kDpReplica };
/// How many CommAxis values there are (arrays indexed by one).
inline constexpr std::size_t kCommAxisCount = 5;
enum class CommOp : std::uint8_t { kAllReduce, kAllGather, kReduceScatter, kSendRecv };

/// One step of a chip's program.
struct Task {
  TaskKind kind = TaskKind::kCompute;
  Stream stream = Stream::kCompute;
  ComputeCategory category = ComputeCategory::kForward;
  CommAxis axis = CommAxis::kTp;
  CommOp op = CommOp::kAllReduce;
  /// Compute tasks: the share of duration_ps in compute-bound GEMMs of linear layers, in 1/255
  /// (8 bits fill the byte before memory_share, so a task stays 56 bytes).
  std::uint8_t gemm_share = 0;
  /// Compute tasks: the share of duration_ps bound by HBM bandwidth, in 1/65535 (16 bits
  /// keep a task in 56 bytes: the executor reads one per event).
  std::uint16_t memory_share = 0;
  /// Compute tasks: their time. Collectives: framework time on their stream besides the
  /// transfer (a per-tensor ZeRO-3 collective's list copies; zero3_collectives.hpp).
  SimTime duration_ps = 0;
  double bytes = 0;            ///< collectives: buffer size S (nccl-tests sense); sends: message
  double flops = 0;            ///< compute tasks: useful FLOPs executed
  double padded_flops = 0;     ///< compute tasks: FLOPs including tile padding
  int peer = -1;               ///< send: destination stage; recv: source stage; kOther: partner
  std::uint32_t message = 0;   ///< send/recv: message id; input: microbatch
  std::uint32_t deps_begin = 0;  ///< [deps_begin, deps_end) in StageProgram::deps
  std::uint32_t deps_end = 0;
};

static_assert(sizeof(Task) <= 56, "the executor reads a Task per event: keep it small");

/// `part` of `whole` in the unsigned integer type `Share`, whose largest value stands for all of
/// it (0 when whole is 0): how a task stores a share of its time.
template <typename Share>
Share share_of(SimTime part, SimTime whole) {
  constexpr double kOne = static_cast<double>(std::numeric_limits<Share>::max());
  if (whole <= 0 || part <= 0) return 0;
  if (part >= whole) return std::numeric_limits<Share>::max();
  return static_cast<Share>(static_cast<double>(part) / static_cast<double>(whole) * kOne + 0.5);
}
/// A share of `Share` as a fraction in [0, 1].
template <typename Share>
double fraction_of(Share share) {
  return share / static_cast<double>(std::numeric_limits<Share>::max());
}

/// The share of a run of `a_ps` at share `a` followed by one of `b_ps` at share `b`: each
/// part's, weighted by its time.
template <typename Share>
Share merged_share(Share a, SimTime a_ps, Share b, SimTime b_ps) {
  if (a == b) return a;
  const double part = fraction_of(a) * static_cast<double>(a_ps) + fraction_of(b) * static_cast<double>(b_ps);
  return share_of<Share>(static_cast<SimTime>(part + 0.5), a_ps + b_ps);
}

/// `part` of `whole` as Task::memory_share stores it (0 when whole is 0).
inline std::uint16_t to_share(SimTime part, SimTime whole) { return share_of<std::uint16_t>(part, whole); }
/// A Task::memory_share as a fraction in [0, 1].
inline double from_share(std::uint16_t share) { return fraction_of(share); }
/// `part` of `whole` as Task::gemm_share stores it (0 when whole is 0).
inline std::uint8_t to_gemm_share(SimTime part, SimTime whole) { return share_of<std::uint8_t>(part, whole); }
/// A Task::gemm_share as a fraction in [0, 1].
inline double from_gemm_share(std::uint8_t share) { return fraction_of(share); }

/// The program of one pipeline stage. Every chip of the stage (all its data- and
/// tensor-parallel replicas) runs the same program: the runtime simulates it once and
/// reports it for all of them.
struct StageProgram {
  int stage = 0;
  std::vector<Task> tasks;
  std::vector<std::uint32_t> deps;  ///< task indices other tasks wait for
  /// Of its compute tasks' time, what the GPU spends waiting for the host to issue kernels
  /// (Segment::host_bound_ps, summed over every run the program holds).
  SimTime host_bound_ps = 0;

  /// Appends a task that waits for `wait_for` (task indices); returns its index.
  std::uint32_t add(Task task, std::span<const std::uint32_t> wait_for);
  /// The same for a braced list (`add(t, {a, b})`), without building a vector.
  std::uint32_t add(Task task, std::initializer_list<std::uint32_t> wait_for = {}) {
    return add(task, std::span<const std::uint32_t>(wait_for.begin(), wait_for.size()));
  }
};

/// Merges each compute task into the compute task before it on the compute stream when
/// nothing can tell them apart: the later one waits for nothing but its predecessor, the
/// earlier one is waited for by no task, and both count as the same category. The merged task
/// runs for the sum of their durations (and FLOPs), so every other task starts and ends when it
/// did before, with one event fewer per merge (collective matmul's slices and the element-wise
/// work after them are most of a tensor-parallel layer's tasks).
void fuse_compute_runs(StageProgram& program);

/// Everything the runtime needs to simulate one training step.
struct StepPlan {
  std::vector<StageProgram> stages;  ///< one per pipeline stage
  int microbatches = 0;
  std::uint32_t replicas_per_stage = 1;  ///< chips each stage program stands for (dp × tp)
  /// Tasks the builder made over all stages, before fuse_compute_runs merged some: what
  /// estimate_work predicts (the builder's peak), not what the runtime executes.
  std::size_t tasks_built = 0;
  double tokens_per_step = 0;
  double model_flops_per_step = 0;  ///< the standard count (6·N·tokens + attention), all chips
  /// The chip's compute units (a GPU's SMs, ChipSpec::sms) that communication kernels take
  /// from compute while they run (CommProfile::compute_units); 0: communication takes none.
  int compute_units = 0;
  /// The HBM bandwidth memory-bound ops run at (bytes/s: HBM bandwidth × memory efficiency),
  /// which communication's traffic shares; 0: not shared (tests' constant-rate compute).
  double hbm_Bps = 0;
  /// The collectives of the dp gather and dp reduce streams share one communicator and run one
  /// at a time, the first ready first (OverlapSpec::dp_serial).
  bool dp_serial = false;
  /// GEMMs beside communication lose a wave to the SMs it holds: the chip's GEMM grids are
  /// persistent and they are launched on all SMs (ChipSpec::persistent_matmuls without
  /// OverlapSpec::gemm_sm_margin).
  bool gemm_waves = false;
};

}  // namespace podsim::parallelism
