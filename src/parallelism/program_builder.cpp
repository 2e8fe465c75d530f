// One program per pipeline stage: the stage's schedule order turned into tasks on six
// streams (docs/runtime.md §2). Each virtual stage runs its own number of layers
// (stage_layers.hpp); what a remat policy re-runs comes from workload::recompute_work;
// tensors it offloads to host memory move over the host link while the layer computes
// (a layer waits for the transfer if it is slower than its compute).
#include "parallelism/program_builder.hpp"

#include <algorithm>
#include <span>

#include "hardware/compute_model.hpp"
#include "parallelism/layer_segments.hpp"
#include "parallelism/layer_times.hpp"
#include "parallelism/pipeline_schedule.hpp"
#include "parallelism/stage_layers.hpp"
#include "parallelism/zero3_collectives.hpp"
#include "workload/activation_sizes.hpp"
#include "workload/layer_ops.hpp"

namespace podsim::parallelism {

bool separate_master_weights(const Precision& p) {
  return hardware::dtype_bytes(p.params) < hardware::dtype_bytes(p.optimizer);
}

bool working_weight_copy(const Precision& p, int zero) {
  return (zero == 1 || zero == 2) && hardware::dtype_bytes(p.params) > hardware::dtype_bytes(activation_dtype(p));
}

double optimizer_bytes_per_param(const Precision& p, int zero) {
  const double opt = hardware::dtype_bytes(p.optimizer);
  const double master = separate_master_weights(p) ? opt : hardware::dtype_bytes(p.params);
  // Read gradient, both moments and the master weights; write the moments and the master
  // weights, and the stored weights too when they are a separate, narrower copy (or, under
  // ZeRO-1/2 with wide stored weights, the 16-bit working copy).
  double bytes = hardware::dtype_bytes(p.grads) + 2 * opt + master + 2 * opt + master;
  if (separate_master_weights(p)) bytes += hardware::dtype_bytes(p.params);
  if (working_weight_copy(p, zero)) bytes += hardware::dtype_bytes(activation_dtype(p));
  return bytes;
}

namespace {

/// What every stage's builder shares.
struct Context {
  const workload::ModelSpec& model;
  const hardware::ChipSpec& chip;
  const ParallelSpec& parallel;
  const TrainingSpec& training;
  int microbatches = 0;
  int virtual_total = 0;    // pp × virtual_stages
  std::vector<int> vs_layers{};  // transformer layers of each virtual stage
  std::vector<Segment> layer_forward{}, layer_backward{}, layer_recompute{};
  std::vector<Segment> embedding_forward{}, embedding_backward{}, head_forward{}, head_backward{};
  double tp_bytes = 0;       // each tensor-parallel collective's buffer, comm dtype
  double message_bytes = 0;  // each pipeline message
  double layer_params = 0;   // per chip (÷ tp)
  double embedding_params = 0;
  double head_params = 0;    // the output projection when it has its own weights on that stage
  double comm_bytes = 0;     // per value moved
  double reduce_bytes = 0;   // per gradient value a data-parallel reduction moves
  PerTensorPlan per_tensor{};  // training.zero3_collectives = per-tensor: each block's collectives
};

/// The blocks ZeRO-3 gathers parameters for.
enum class Block { kEmbedding, kLayer, kHead };

/// Per-chip parameters of the input embedding (vocab-parallel, plus learned positions) and of
/// the output side (projection when it has its own copy on that stage, final norm).
struct EdgeParams {
  double embedding = 0;
  double head = 0;
};

EdgeParams edge_params(const workload::ModelSpec& model, const ParallelSpec& parallel) {
  const workload::ParamCount p = workload::count_params(model);
  EdgeParams e;
  e.embedding = p.embedding / parallel.tp + p.position;
  const double projection =
      model.tied_embeddings ? (parallel.pp > 1 ? p.embedding : 0.0) : p.output;
  e.head = projection / parallel.tp + p.final_norm;
  return e;
}

/// A collective task on `stream`.
Task collective(Stream stream, CommAxis axis, CommOp op, double bytes) {
  Task t;
  t.kind = TaskKind::kCollective;
  t.stream = stream;
  t.axis = axis;
  t.op = op;
  t.bytes = bytes;
  return t;
}

/// The compute stream waiting for pipeline message `message` from stage `peer`.
Task receive(int peer, std::uint32_t message) {
  Task t;
  t.kind = TaskKind::kRecv;
  t.axis = CommAxis::kPp;
  t.peer = peer;
  t.message = message;
  return t;
}

std::uint32_t message_id(const Context& c, bool forward, int virtual_stage, int microbatch) {
  return static_cast<std::uint32_t>(((forward ? 0 : 1) * c.virtual_total + virtual_stage) * c.microbatches + microbatch);
}

class StageBuilder {
 public:
  StageBuilder(const Context& c, int stage)
      : c_(c),
        stage_(stage),
        shard_grad_op_(c.parallel.zero == 2 && c.parallel.dp > 1 &&
                       workload::stack_profile(c.training.stack).zero2_shard_grad_op),
        gathers_once_(fsdp_gathers_once(c.parallel, c.training)) {
    p_.stage = stage;
  }

  /// Tasks build() made before merging compute runs.
  std::size_t tasks_built() const { return built_; }

  StageProgram build(ComputeRuns runs) {
    const auto order = stage_schedule(c_.parallel.schedule, c_.parallel.pp, c_.parallel.virtual_stages,
                                      c_.microbatches, stage_, c_.parallel.microbatch_group);
    reserve(order.size());
    final_backward_.assign(static_cast<std::size_t>(c_.parallel.virtual_stages), -1);
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (!order[i].forward) final_backward_[static_cast<std::size_t>(order[i].chunk)] = static_cast<int>(i);
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i].forward) {
        forward(order[i]);
      } else {
        backward(order[i], final_backward_[static_cast<std::size_t>(order[i].chunk)] == static_cast<int>(i));
      }
    }
    finish();
    built_ = p_.tasks.size();
    if (runs == ComputeRuns::kFused) fuse_compute_runs(p_);
    return std::move(p_);
  }

 private:
  /// Room for the program of `actions` forward and backward passes, so a large step is built
  /// without regrowing its arrays (each segment is one to four tasks; ZeRO-3 adds a gather).
  void reserve(std::size_t actions) {
    int layers = 0;
    for (int chunk = 0; chunk < c_.parallel.virtual_stages; ++chunk) {
      layers = std::max(layers, c_.vs_layers[static_cast<std::size_t>(virtual_stage(chunk))]);
    }
    const std::size_t per_layer =
        c_.layer_forward.size() + c_.layer_backward.size() + c_.layer_recompute.size() + zero3_tasks_per_layer();
    const std::size_t tasks = actions * (static_cast<std::size_t>(layers) * per_layer + 8) + 64;
    p_.tasks.reserve(tasks);
    p_.deps.reserve(tasks);
  }

  int virtual_stage(int chunk) const { return chunk * c_.parallel.pp + stage_; }
  int stage_of(int virtual_stage) const { return virtual_stage % c_.parallel.pp; }
  bool zero3() const { return c_.parallel.zero == 3 && c_.parallel.dp > 1; }
  /// ZeRO-2 as FSDP's SHARD_GRAD_OP runs it (StackProfile::zero2_shard_grad_op): gathered in
  /// every forward, kept through the backward, reduce-scattered layer by layer.
  bool shard_grad_op() const { return shard_grad_op_; }
  /// Sharded as FSDP shards (ZeRO-3 and SHARD_GRAD_OP): parameters gathered layer by layer in
  /// the forward, gradients reduce-scattered layer by layer.
  bool fsdp_sharded() const { return zero3() || shard_grad_op(); }
  bool per_tensor() const { return zero3() && c_.training.zero3_collectives == Zero3Collectives::kPerTensor; }
  /// FSDP gathered once a step and reduced after the stage's last backward (fsdp_gathers_once).
  bool gathers_once() const { return gathers_once_; }
  std::size_t zero3_tasks_per_layer() const {
    if (shard_grad_op()) return 3;
    if (!zero3()) return 0;
    if (!per_tensor()) return 3;
    const PerTensorCalls& k = c_.per_tensor.layer;
    return k.forward.size() + k.recompute.size() + k.backward.size() + k.reduce.size();
  }
  /// ZeRO-1/2 with data parallelism: the optimizer state is sharded and the updated weights gathered.
  bool zero12() const {
    return (c_.parallel.zero == 1 || c_.parallel.zero == 2) && c_.parallel.dp > 1 && !shard_grad_op();
  }
  /// ZeRO-2 with data parallelism: gradients sharded too, so reduced every microbatch.
  bool zero2() const { return c_.parallel.zero == 2 && c_.parallel.dp > 1 && !shard_grad_op(); }

  /// Appends a segment list; the first task waits for `first_deps`. Returns the last task.
  std::uint32_t run(const std::vector<Segment>& segments, ComputeCategory category,
                    std::span<const std::uint32_t> first_deps = {}) {
    std::span<const std::uint32_t> deps = first_deps;
    for (const Segment& s : segments) p_.host_bound_ps += s.host_bound_ps;
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const Segment& s = segments[i];
      if (s.collective && s.partner == Partner::kNext && i + 1 < segments.size()) {
        gather_into_matmul(s, segments[i + 1], category, deps);
        ++i;
      } else if (!s.collective && i + 1 < segments.size() && segments[i + 1].partner == Partner::kPrevious) {
        matmul_into_reduction(s, segments[i + 1], category, deps);
        ++i;
      } else if (s.collective) {
        last_ = p_.add(tp_collective(Stream::kCompute, s.op, category), deps);
      } else {
        last_ = p_.add(compute(s, category), deps);
      }
      deps = {};
    }
    return last_;
  }

  Task tp_collective(Stream stream, CommOp op, ComputeCategory category) const {
    Task t = collective(stream, CommAxis::kTp, op, c_.tp_bytes);
    t.category = category;
    return t;
  }

  /// Slices [from, from + share) of compute run `s` cut into k equal slices (collective
  /// matmul's steps; k = 1: the whole run).
  static Task compute(const Segment& s, ComputeCategory category, int from = 0, int share = 1, int k = 1) {
    Task t;
    t.category = category;
    const SimTime step = s.duration_ps / k;
    // The last part takes the remainder, so the parts sum to the run exactly.
    t.duration_ps = from + share == k ? s.duration_ps - step * from : step * share;
    t.memory_share = to_share(s.memory_ps, s.duration_ps);  // slices of a run share its mix
    t.gemm_share = to_gemm_share(s.gemm_ps, s.duration_ps);
    t.flops = s.flops * share / k;
    t.padded_flops = s.padded_flops * share / k;
    return t;
  }

  // Collective matmul (XLA's windowed einsum, Megatron's --tp-comm-overlap), for tp = k: the
  // all-gather's k-1 ring steps each overlap one of the matmul's k slices, so the pair takes
  // max((k-1)/k·M, T) + M/k, exactly what the tasks below give: the first k-1 slices beside the
  // collective, the last one after both. The collective runs on the tp stream and shares links
  // with everything else in flight.
  void gather_into_matmul(const Segment& gather, const Segment& matmul, ComputeCategory category,
                          std::span<const std::uint32_t> deps) {
    const int k = c_.parallel.tp;
    // It gathers what the compute before it wrote (the matmul alone needs `deps`, e.g. its weights).
    const std::uint32_t comm = p_.add(tp_collective(Stream::kTp, gather.op, category), {last_});
    p_.add(compute(matmul, category, 0, k - 1, k), deps);
    last_ = p_.add(compute(matmul, category, k - 1, 1, k), {comm});
  }

  // ... and the reduce-scatter after a matmul: its first slice, then the k-1 others beside the
  // collective (M/k + max((k-1)/k·M, T)); what follows reads the reduced result, so it waits.
  // An all-reduce is a reduce-scatter overlapped this way plus an all-gather that stays exposed.
  void matmul_into_reduction(const Segment& matmul, const Segment& reduction, ComputeCategory category,
                             std::span<const std::uint32_t> deps) {
    const int k = c_.parallel.tp;
    const std::uint32_t first = p_.add(compute(matmul, category, 0, 1, k), deps);
    const std::uint32_t comm = p_.add(tp_collective(Stream::kTp, CommOp::kReduceScatter, category), {first});
    p_.add(compute(matmul, category, 1, k - 1, k));
    if (reduction.op == CommOp::kAllReduce) {
      last_ = p_.add(tp_collective(Stream::kCompute, CommOp::kAllGather, category), {comm});
      return;
    }
    Task wait;
    wait.kind = TaskKind::kWait;
    wait.axis = CommAxis::kTp;
    last_ = p_.add(wait, {comm});
  }

  /// ZeRO-3: gathers a layer's parameters on the gather stream, at most fsdp_prefetch layers
  /// ahead of the layer computing (its buffer is free once the layer fsdp_prefetch + 1 back has
  /// finished). Returns the gather task, which the layer must wait for; none where the
  /// parameters are still gathered (gathers_once: all but each block's first forward).
  std::vector<std::uint32_t> gather_params(double params, bool forward, bool first_forward = false) {
    if (!zero3() && !(forward && shard_grad_op())) return {};
    if (gathers_once() && !(forward && first_forward)) return {};
    std::vector<std::uint32_t> window;
    const auto ahead = static_cast<std::size_t>(c_.training.overlap.fsdp_prefetch) + 1;
    if (gathered_.size() >= ahead) window.push_back(gathered_[gathered_.size() - ahead]);
    return {p_.add(collective(Stream::kDpGather, CommAxis::kDp, CommOp::kAllGather, params * c_.comm_bytes), window)};
  }

  /// ZeRO-1/2 with overlap.param_gather: the previous step's updated weights, gathered during
  /// this step's forward in the order the layers first need them (Megatron-LM's
  /// --overlap-param-gather). Returns the gather the layer's first forward waits for.
  std::vector<std::uint32_t> early_gather(double params, bool first_use) {
    if (!first_use || !zero12() || !c_.training.overlap.param_gather) return {};
    return {p_.add(collective(Stream::kDpGather, CommAxis::kDp, CommOp::kAllGather, params * c_.comm_bytes))};
  }

  /// The compute that used a gather's parameters (the prefetch window counts these).
  void note_gathered_compute(bool gathered) {
    if (fsdp_sharded() && (gathered || !gathers_once())) gathered_.push_back(last_);
  }

  double params_of(Block b) const {
    return b == Block::kLayer ? c_.layer_params : b == Block::kEmbedding ? c_.embedding_params : c_.head_params;
  }
  const PerTensorCalls& calls_of(Block b) const {
    const PerTensorPlan& t = c_.per_tensor;
    return b == Block::kLayer ? t.layer : b == Block::kEmbedding ? t.embedding : t.head;
  }

  /// Per-tensor ZeRO-3: one collective per tensor of `elements` (per chip), each taking its
  /// turn on the compute stream with its list copies (zero3_collectives.hpp).
  void blocking_calls(CommOp op, const std::vector<double>& elements, ComputeCategory category) {
    for (const double n : elements) {
      Task t = collective(Stream::kCompute, CommAxis::kDp, op,
                          n * (op == CommOp::kReduceScatter ? c_.reduce_bytes : c_.comm_bytes));
      t.category = category;
      t.duration_ps = list_copies_ps(c_.parallel.dp, t.bytes, c_.chip);
      last_ = p_.add(t);
    }
  }

  /// Runs `segments` of block `b` on parameters a ZeRO-3 layout gathers first (see
  /// gather_params; per tensor: blocking_calls), or, on their first forward, a ZeRO-1/2 layout
  /// gathers early (see early_gather).
  void run_gathered(const std::vector<Segment>& segments, ComputeCategory category, Block b,
                    bool first_forward = false) {
    if (per_tensor()) {
      const PerTensorCalls& k = calls_of(b);
      blocking_calls(CommOp::kAllGather, category == ComputeCategory::kForward ? k.forward : k.backward, category);
      run(segments, category);
      return;
    }
    const double params = params_of(b);
    std::vector<std::uint32_t> deps = gather_params(params, category == ComputeCategory::kForward, first_forward);
    const bool gathered = !deps.empty();
    for (const std::uint32_t g : early_gather(params, first_forward)) deps.push_back(g);
    run(segments, category, deps);
    note_gathered_compute(gathered);
  }

  /// A data-parallel reduction of `params` gradients (per chip) on the reduce stream once task
  /// `dep` has finished. Under hybrid sharding the replicas then all-reduce the shard the
  /// reduce-scatter left on each chip (PyTorch FSDP's HYBRID_SHARD: reduce-scatter in the
  /// shard group, all-reduce in the replicate group, in one post-backward hook).
  /// Returns the reduction's task (not the replicas' all-reduce).
  std::uint32_t reduce(CommOp op, double params, std::uint32_t dep) {
    const std::uint32_t r = p_.add(collective(Stream::kDpReduce, CommAxis::kDp, op, params * c_.reduce_bytes), {dep});
    reductions_.push_back(r);
    if (!hybrid_shard(c_.parallel)) return r;
    const double shard = params / zero_shard(c_.parallel);
    reductions_.push_back(
        p_.add(collective(Stream::kDpReduce, CommAxis::kDpReplica, CommOp::kAllReduce, shard * c_.reduce_bytes), {r}));
    return r;
  }

  /// Gradients of block `b` became final at task `last_`.
  void gradients_ready(Block b, bool final_microbatch) {
    const double params = params_of(b);
    if (per_tensor()) {
      blocking_calls(CommOp::kReduceScatter, calls_of(b).reduce, ComputeCategory::kBackward);
      return;
    }
    if (gathers_once()) {
      // Accumulated whole until the stage's last backward has run (reduce_accumulated).
      if (final_microbatch) ready_grads_.push_back({params, last_});
      return;
    }
    if (fsdp_sharded()) {
      // FSDP reduce-scatters every microbatch's gradients as they come; where the stack lets
      // only fsdp_reduce_limit of them be outstanding, the compute stream first waits for the
      // one that many back (XLA's overlap limit, FSDP2's wait on the previous one's event).
      const auto limit = static_cast<std::size_t>(c_.training.overlap.fsdp_reduce_limit);
      if (limit > 0 && scattered_.size() >= limit) {
        Task wait;
        wait.kind = TaskKind::kWait;
        wait.axis = CommAxis::kDp;
        last_ = p_.add(wait, {scattered_[scattered_.size() - limit]});
      }
      scattered_.push_back(reduce(CommOp::kReduceScatter, params, last_));
      return;
    }
    // ZeRO-2 keeps only its shard of the gradients, so every microbatch's gradients are
    // reduce-scattered as they come (DeepSpeed stage_1_and_2.py, reduce_ready_partitions_and_
    // remove_grads: `if self.partition_gradients or self.is_gradient_accumulation_boundary`);
    // ZeRO-0/1 accumulate locally and reduce the final microbatch's only.
    if (final_microbatch || zero2()) ready_grads_.push_back({params, last_});
  }

  /// gathers_once: the accumulated gradients of every block whose last backward has run,
  /// reduce-scattered one block after another once `backward_end` has finished, as the
  /// pipeline's reduce-grad step issues each FSDP group's post-backward.
  void reduce_accumulated(std::uint32_t backward_end) {
    for (const auto& [params, task] : ready_grads_) reduce(CommOp::kReduceScatter, params, backward_end);
    ready_grads_.clear();
  }

  /// Reduces the gradients made ready since the last flush, in buckets of dp_bucket_bytes in
  /// the order they became final; each bucket starts when its last gradient is ready (or, with
  /// the overlap off, once `backward_end` has finished).
  void reduce_ready(std::uint32_t backward_end) {
    double bucket = 0;
    std::uint32_t dep = 0;
    auto flush = [&] {
      if (bucket <= 0) return;
      const CommOp op = c_.parallel.zero == 0 ? CommOp::kAllReduce : CommOp::kReduceScatter;
      reduce(op, bucket, c_.training.overlap.dp_reduce ? dep : backward_end);
      bucket = 0;
    };
    for (const auto& [params, task] : ready_grads_) {
      bucket += params;
      dep = task;
      if (bucket * c_.reduce_bytes >= c_.training.dp_bucket_bytes) flush();
    }
    flush();
    ready_grads_.clear();
  }

  void forward(const PipelineAction& a) {
    const int vs = virtual_stage(a.chunk);
    Task in = receive(stage_of(vs - 1), message_id(c_, true, vs, a.microbatch));
    if (vs == 0) {
      in = Task{};
      in.kind = TaskKind::kInput;
      in.message = static_cast<std::uint32_t>(a.microbatch);
    }
    last_ = p_.add(in);
    const bool first = a.microbatch == 0;  // every schedule runs microbatch 0 first on each chunk
    if (vs == 0) {
      run_gathered(c_.embedding_forward, ComputeCategory::kForward, Block::kEmbedding, first);
    }
    for (int l = 0; l < c_.vs_layers[static_cast<std::size_t>(vs)]; ++l) {
      run_gathered(c_.layer_forward, ComputeCategory::kForward, Block::kLayer, first);
    }
    if (vs == c_.virtual_total - 1) {
      run_gathered(c_.head_forward, ComputeCategory::kForward, Block::kHead, first);
      return;
    }
    send(true, vs + 1, a.microbatch);
  }

  void backward(const PipelineAction& a, bool final_microbatch) {
    const int vs = virtual_stage(a.chunk);
    if (vs == c_.virtual_total - 1) {
      run_gathered(c_.head_backward, ComputeCategory::kBackward, Block::kHead);
      gradients_ready(Block::kHead, final_microbatch);
      if (final_microbatch) tied_sync_dep_ = last_;
    } else {
      last_ = p_.add(receive(stage_of(vs + 1), message_id(c_, false, vs, a.microbatch)));
    }
    for (int l = 0; l < c_.vs_layers[static_cast<std::size_t>(vs)]; ++l) {
      if (per_tensor()) {
        blocking_calls(CommOp::kAllGather, c_.per_tensor.layer.recompute, ComputeCategory::kRecompute);
        run(c_.layer_recompute, ComputeCategory::kRecompute);
        blocking_calls(CommOp::kAllGather, c_.per_tensor.layer.backward, ComputeCategory::kBackward);
        run(c_.layer_backward, ComputeCategory::kBackward);
        gradients_ready(Block::kLayer, final_microbatch);
        continue;
      }
      const auto gather = gather_params(c_.layer_params, false);
      if (!c_.layer_recompute.empty()) {
        run(c_.layer_recompute, ComputeCategory::kRecompute, gather);
        run(c_.layer_backward, ComputeCategory::kBackward);
      } else {
        run(c_.layer_backward, ComputeCategory::kBackward, gather);
      }
      note_gathered_compute(!gather.empty());
      gradients_ready(Block::kLayer, final_microbatch);
    }
    if (vs == 0) {
      run_gathered(c_.embedding_backward, ComputeCategory::kBackward, Block::kEmbedding);
      gradients_ready(Block::kEmbedding, final_microbatch);
      if (final_microbatch) tied_sync_dep_ = last_;
    }
    last_backward_ = last_;
    if (zero2()) reduce_ready(last_backward_);
    if (gathers_once() && final_microbatch) reduce_accumulated(last_backward_);
    if (vs > 0) send(false, vs - 1, a.microbatch);
  }

  void send(bool forward, int to_virtual_stage, int microbatch) {
    Task s;
    s.kind = TaskKind::kSend;
    s.stream = forward ? Stream::kPpForward : Stream::kPpBackward;
    s.axis = CommAxis::kPp;
    s.op = CommOp::kSendRecv;
    s.bytes = c_.message_bytes;
    s.peer = stage_of(to_virtual_stage);
    s.message = message_id(c_, forward, to_virtual_stage, microbatch);
    p_.add(s, {last_});
  }

  void finish() {
    // Data-parallel gradient reduction in buckets, in the order gradients became final;
    // each starts when its last gradient is ready (or after the whole backward).
    if (c_.parallel.dp > 1 && !fsdp_sharded()) reduce_ready(last_backward_);
    // Tied input and output embeddings on different stages: their gradients are summed
    // between the first and the last stage (Megatron-LM's embedding all-reduce).
    const bool first = stage_ == 0;
    const bool last = stage_ == c_.parallel.pp - 1;
    if (c_.model.tied_embeddings && c_.parallel.pp > 1 && (first || last)) {
      Task t = collective(Stream::kOther, CommAxis::kOther, CommOp::kAllReduce, c_.embedding_params * c_.reduce_bytes);
      t.peer = first ? c_.parallel.pp - 1 : 0;
      reductions_.push_back(p_.add(t, {tied_sync_dep_}));
    }
    Task wait;
    wait.kind = TaskKind::kWait;
    wait.axis = CommAxis::kDp;
    last_ = p_.add(wait, reductions_);

    const double params = stage_params();
    const hardware::OpTime update = optimizer_time(c_.model, c_.chip, c_.parallel, c_.training, stage_);
    Task opt;
    opt.category = ComputeCategory::kOptimizer;
    opt.duration_ps = update.time_ps;
    opt.memory_share = to_share(update.memory_ps, update.time_ps);
    last_ = p_.add(opt);

    if (zero12() && !c_.training.overlap.param_gather) {
      // Every replica gathers the updated weights it did not update itself.
      const std::uint32_t gather =
          p_.add(collective(Stream::kDpGather, CommAxis::kDp, CommOp::kAllGather, params * c_.comm_bytes), {last_});
      Task w;
      w.kind = TaskKind::kWait;
      w.axis = CommAxis::kDp;
      p_.add(w, {gather});
    }
  }

  double stage_params() const { return stage_param_count(c_.model, c_.parallel, stage_); }

  const Context& c_;
  int stage_;
  bool shard_grad_op_;
  bool gathers_once_;
  StageProgram p_;
  std::size_t built_ = 0;
  std::uint32_t last_ = 0;
  std::uint32_t last_backward_ = 0;
  std::uint32_t tied_sync_dep_ = 0;
  std::vector<int> final_backward_;
  std::vector<std::pair<double, std::uint32_t>> ready_grads_;
  std::vector<std::uint32_t> reductions_;
  std::vector<std::uint32_t> gathered_;
  std::vector<std::uint32_t> scattered_;  // ZeRO-3's gradient reduce-scatters, in order
};

}  // namespace

double stage_param_count(const workload::ModelSpec& model, const ParallelSpec& parallel, int stage) {
  const EdgeParams edge = edge_params(model, parallel);
  const int virtual_total = parallel.pp * parallel.virtual_stages;
  const double layer = workload::count_params(model).per_layer / parallel.tp;
  const auto layers = virtual_stage_layers(model, parallel);
  double params = 0;
  for (int chunk = 0; chunk < parallel.virtual_stages; ++chunk) {
    const int vs = chunk * parallel.pp + stage;
    params += layers[static_cast<std::size_t>(vs)] * layer;
    if (vs == 0) params += edge.embedding;
    if (vs == virtual_total - 1) params += edge.head;
  }
  return params;
}

workload::Slicing slicing_of(const ParallelSpec& parallel, const TrainingSpec& training) {
  workload::Slicing s;
  s.micro_batch = training.micro_batch;
  s.seq_len = training.seq_len;
  s.tp = parallel.tp;
  s.sequence_parallel = parallel.sequence_parallel && parallel.tp > 1;
  s.flash_attention = training.flash_attention;
  s.act_bytes = hardware::dtype_bytes(activation_dtype(training.precision));
  const double gemm = hardware::dtype_bytes(training.precision.compute);
  s.linear_input_bytes = gemm < 2 ? gemm : s.act_bytes;
  s.loss_kernel = training.loss_kernel;
  s.loss_bytes = hardware::dtype_bytes(training.precision.loss);
  s.train_metrics = training.train_metrics;
  return s;
}

double tp_buffer_bytes(const workload::ModelSpec& model, const TrainingSpec& training) {
  return double(training.micro_batch) * training.seq_len * model.hidden * hardware::dtype_bytes(training.precision.comm);
}

StepPlan build_step(const workload::ModelSpec& model, const hardware::ChipSpec& given_chip, const ParallelSpec& parallel,
                    const TrainingSpec& training, ComputeRuns runs, int held_microbatches) {
  // The fused attention runs at the rate of the kernel the step uses (training.flash_kernel).
  const hardware::ChipSpec chip = hardware::with_flash_kernel(given_chip, training.flash_kernel);
  Context c{.model = model, .chip = chip, .parallel = parallel, .training = training};
  c.microbatches = held_microbatches > 0 ? held_microbatches : microbatches(parallel, training);
  c.virtual_total = parallel.pp * parallel.virtual_stages;
  c.vs_layers = virtual_stage_layers(model, parallel);
  const auto& prec = training.precision;
  c.comm_bytes = hardware::dtype_bytes(prec.comm);
  c.reduce_bytes = hardware::dtype_bytes(reduce_dtype(prec));

  LayerTimes times = layer_times(model, chip, parallel, training);
  c.layer_forward = std::move(times.layer_forward);
  c.layer_backward = std::move(times.layer_backward);
  c.layer_recompute = std::move(times.layer_recompute);
  c.embedding_forward = std::move(times.embedding_forward);
  c.embedding_backward = std::move(times.embedding_backward);
  c.head_forward = std::move(times.head_forward);
  c.head_backward = std::move(times.head_backward);
  const workload::LayerRemat& remat = times.remat;

  // Megatron's pipeline scatter/gather sends 1/tp of the activation from each tensor-parallel rank.
  c.tp_bytes = tp_buffer_bytes(model, training);
  c.message_bytes = c.tp_bytes / parallel.tp;
  const EdgeParams edge = edge_params(model, parallel);
  c.layer_params = workload::count_params(model).per_layer / parallel.tp;
  c.embedding_params = edge.embedding;
  c.head_params = edge.head;
  if (parallel.zero == 3 && training.zero3_collectives == Zero3Collectives::kPerTensor) {
    // The recompute forward fetches weights when it re-runs a linear layer (full recompute; not
    // selective recompute, which re-runs only the attention core).
    const bool refetch = std::any_of(remat.rerun.begin(), remat.rerun.end(), [](const workload::WorkItem& w) {
      return w.math == workload::MathClass::kLinear;
    });
    c.per_tensor = per_tensor_plan(model, parallel.tp, c.embedding_params, c.head_params, refetch);
  }

  StepPlan plan;
  plan.microbatches = c.microbatches;
  plan.replicas_per_stage = static_cast<std::uint32_t>(parallel.dp * parallel.tp);
  plan.compute_units = chip.sms;
  plan.hbm_Bps = chip.hbm_bandwidth_Bps * chip.efficiency.memory;
  plan.dp_serial = training.overlap.dp_serial;
  plan.gemm_waves = chip.persistent_matmuls && !training.overlap.gemm_sm_margin;
  plan.tokens_per_step = double(training.global_batch) * training.seq_len;
  plan.model_flops_per_step = workload::model_flops_per_token(model, training.seq_len) * plan.tokens_per_step;
  for (int s = 0; s < parallel.pp; ++s) {
    StageBuilder builder(c, s);
    plan.stages.push_back(builder.build(runs));
    plan.tasks_built += builder.tasks_built();
  }
  return plan;
}

}  // namespace podsim::parallelism
