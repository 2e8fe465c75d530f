// The ops of a transformer layer on one chip (shapes divided by tensor parallelism), each
// tagged with its op, the tensors it reads and writes, and its number format (MathClass);
// and what a remat policy re-runs before the backward (remat_policy.hpp states the model).
#include "workload/layer_ops.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "util/error.hpp"
#include "workload/host_dispatch.hpp"

namespace podsim::workload {

namespace {

using hardware::OpCost;

/// Shapes of one layer on one chip.
struct Dims {
  double tokens;       // b·s: rows of every projection matmul
  double norm_tokens;  // tokens the element-wise ops see (÷ tp with sequence parallelism)
  double hidden;
  double heads;        // query heads on this chip
  double kv_heads;     // key/value heads on this chip (replicated when fewer than tp)
  double head_dim;
  double ffn;          // ffn_hidden ÷ tp
  double batch;        // b
  double seq;          // s
  double act;          // bytes per value
};

Dims dims_of(const ModelSpec& m, const Slicing& s) {
  if (m.heads % s.tp != 0) {
    throw InputError("tp (" + std::to_string(s.tp) + ") must divide the model's heads (" +
                     std::to_string(m.heads) + ")");
  }
  if (m.ffn_hidden % s.tp != 0) {
    throw InputError("tp (" + std::to_string(s.tp) + ") must divide ffn_hidden (" +
                     std::to_string(m.ffn_hidden) + ")");
  }
  if (s.sequence_parallel && s.seq_len % s.tp != 0 && m.hidden % s.tp != 0) {
    throw InputError("with sequence parallelism, tp must divide seq_len or the hidden size");
  }
  Dims d{};
  d.batch = s.micro_batch;
  d.seq = s.seq_len;
  d.tokens = d.batch * d.seq;
  d.norm_tokens = s.sequence_parallel ? d.tokens / s.tp : d.tokens;
  d.hidden = m.hidden;
  d.heads = double(m.heads) / s.tp;
  d.kv_heads = m.kv_heads >= s.tp ? double(m.kv_heads) / s.tp : 1.0;
  d.head_dim = m.head_dim;
  d.ffn = double(m.ffn_hidden) / s.tp;
  d.act = s.act_bytes;
  return d;
}

/// A projection [tokens × in]·[in × out] reading its input and weights and writing its output.
OpCost projection(double tokens, double in, double out, double act) {
  return OpCost{1, tokens, out, in, (tokens * in + in * out + tokens * out) * act};
}

/// Backward of a projection: input gradient [tokens × out]·[out × in] and weight gradient
/// [in × tokens]·[tokens × out], each as many FLOPs as the forward.
void projection_backward(std::vector<WorkItem>& out, const std::string& name, double tokens,
                         double in, double width, double act) {
  out.push_back({name + ".dgrad", OpCost{1, tokens, in, width, (tokens * width + width * in + tokens * in) * act}});
  out.push_back({name + ".wgrad", OpCost{1, in, width, tokens, (tokens * in + tokens * width + in * width) * act}});
}

/// An element-wise op moving `values` values `passes` times (reads + writes).
OpCost elementwise(double values, double passes, double act) { return OpCost{0, 0, 0, 0, values * passes * act}; }

WorkItem sync(TpSync kind, const char* name) { return WorkItem{name, OpCost{}, kind}; }

/// A forward item of op `op`, reading `in` and writing `out`.
WorkItem item(std::string name, OpCost cost, MathClass math, int op, TensorSet in, TensorSet out) {
  WorkItem w{std::move(name), cost};
  w.math = math;
  w.op = op;
  w.in = in;
  w.out = out;
  return w;
}

constexpr TensorSet kQkvSet = bit(Tensor::kQ) | bit(Tensor::kK) | bit(Tensor::kV);

}  // namespace

double causal_block_share(double seq) {
  // FlashAttention-2 (Dao, arXiv 2307.08691, §3.1.1 "Causal masking": blocks whose column
  // indices all exceed the row indices are skipped, ~1.7-1.8x faster than without the mask) and
  // JAX's Pallas TPU kernel (jax/experimental/pallas/ops/tpu/flash_attention.py: default
  // BlockSizes of 128, a block runs only when below_or_on_diag) cut the s×s scores into
  // 128-wide blocks: of T×T blocks, T = ⌈s/128⌉, the T(T+1)/2 on or below the diagonal run.
  constexpr double kBlock = 128;
  const double t = std::ceil(seq / kBlock);
  return t <= 0 ? 1.0 : (t + 1) / (2 * t);
}

namespace {

/// The attention core as one op: reads Q, K, V, writes the scores (unless flash) and the context.
void attention_core_forward(std::vector<WorkItem>& out, const Dims& d, bool flash, bool dropout, int op) {
  const double heads = d.batch * d.heads;
  const double kv_values = d.batch * d.kv_heads * d.seq * d.head_dim;
  const double q_values = heads * d.seq * d.head_dim;
  const TensorSet in = kQkvSet;
  if (flash) {
    // Scores and values in one kernel: two matmuls of s×s×d per head, Q/K/V read once,
    // the output written once; the s×s scores never reach HBM.
    out.push_back(item("attention.flash",
                       OpCost{2 * heads * causal_block_share(d.seq), d.seq, d.seq, d.head_dim,
                              (2 * q_values + 2 * kv_values) * d.act, true},
                       MathClass::kAttention, op, in, bit(Tensor::kContext)));
    return;
  }
  const double scores = heads * d.seq * d.seq;
  const TensorSet out_set = bit(Tensor::kScores) | bit(Tensor::kContext);
  out.push_back(item("attention.scores", OpCost{heads, d.seq, d.seq, d.head_dim, (q_values + kv_values + scores) * d.act},
                     MathClass::kAttention, op, in, out_set));
  out.push_back(item("attention.softmax", elementwise(scores, 2, d.act), MathClass::kOther, op, in, out_set));
  if (dropout) {
    // Read the probabilities, write a 1-byte mask and the dropped-out copy.
    out.push_back(item("attention.dropout", OpCost{0, 0, 0, 0, scores * (2 * d.act + 1)}, MathClass::kOther, op, in, out_set));
  }
  out.push_back(item("attention.values", OpCost{heads, d.seq, d.head_dim, d.seq, (scores + kv_values + q_values) * d.act},
                     MathClass::kAttention, op, in, out_set));
}

void attention_core_backward(std::vector<WorkItem>& out, const Dims& d, bool flash, bool dropout) {
  const double heads = d.batch * d.heads;
  const double values = heads * d.seq * d.head_dim;
  auto add = [&](const char* name, OpCost cost, MathClass math) {
    WorkItem w{name, cost};
    w.math = math;
    out.push_back(w);
  };
  if (flash) {
    // FlashAttention's backward recomputes the scores: 5 matmuls of s×s×d (2.5× forward), on
    // the causal blocks only, as the forward.
    add("attention.flash.backward",
        OpCost{5 * heads * causal_block_share(d.seq), d.seq, d.seq, d.head_dim, 8 * values * d.act, true},
        MathClass::kAttention);
    return;
  }
  const double scores = heads * d.seq * d.seq;
  add("attention.values.backward", OpCost{2 * heads, d.seq, d.seq, d.head_dim, (2 * scores + 4 * values) * d.act},
      MathClass::kAttention);
  if (dropout) add("attention.dropout.backward", OpCost{0, 0, 0, 0, scores * (2 * d.act + 1)}, MathClass::kOther);
  add("attention.softmax.backward", elementwise(scores, 3, d.act), MathClass::kOther);
  add("attention.scores.backward", OpCost{2 * heads, d.seq, d.head_dim, d.seq, (scores + 4 * values) * d.act},
      MathClass::kAttention);
}

/// Backward of a linear layer (its dgrad and wgrad GEMMs).
void linear_backward(std::vector<WorkItem>& out, const std::string& name, double tokens, double in, double width,
                     double act) {
  const std::size_t first = out.size();
  projection_backward(out, name, tokens, in, width, act);
  for (std::size_t i = first; i < out.size(); ++i) out[i].math = MathClass::kLinear;
}

/// Transformer Engine's fp8 GEMMs read fp8 operands: before each linear GEMM its input is cast
/// (read in the activations dtype, written in fp8 and, transposed, again for the weight
/// gradient: TE's cast_transpose), and so is the output gradient before each dgrad/wgrad pair.
void add_fp8_casts(LayerWork& w, const Slicing& s) {
  const double bytes_per_value = s.act_bytes + 2 * s.linear_input_bytes;
  auto with_casts = [&](const std::vector<WorkItem>& items, bool forward) {
    std::vector<WorkItem> out;
    for (const WorkItem& it : items) {
      const bool gemm_input = forward ? it.math == MathClass::kLinear
                                      : it.math == MathClass::kLinear && it.name.size() > 6 &&
                                            it.name.compare(it.name.size() - 6, 6, ".dgrad") == 0;
      if (gemm_input) {
        WorkItem cast = it;  // same op and tensors: a recompute that re-runs the GEMM re-runs its cast
        cast.name = it.name + ".fp8_cast";
        cast.math = MathClass::kGemmCast;
        cast.cost = OpCost{0, 0, 0, 0, it.cost.m * it.cost.k * bytes_per_value};
        out.push_back(cast);
      }
      out.push_back(it);
    }
    return out;
  };
  w.forward = with_casts(w.forward, true);
  w.backward = with_casts(w.backward, false);
}

}  // namespace

LayerWork transformer_layer(const ModelSpec& m, const Slicing& s) {
  const Dims d = dims_of(m, s);
  const bool tp = s.tp > 1;
  const bool sp = s.sequence_parallel && tp;
  LayerWork w;
  w.needed = needed_by_backward(s.flash_attention, m.dropout, m.parallel_block);
  const double qkv_width = (d.heads + 2 * d.kv_heads) * d.head_dim;
  const double up_width = (m.mlp == MlpKind::kSwiglu ? 2 : 1) * d.ffn;
  const double norm_values = d.norm_tokens * d.hidden;
  // A residual add reads both inputs and writes the sum; with dropout on the branch it also
  // writes a 1-byte mask (Megatron's fused bias-dropout-add), and its backward reads it.
  const OpCost residual{0, 0, 0, 0, norm_values * (3 * d.act + (m.dropout ? 1 : 0))};
  const OpCost residual_backward{0, 0, 0, 0, norm_values * (2 * d.act + (m.dropout ? 1 : 0))};
  // Before a column-parallel block: all-gather the sequence shards (SP); after a
  // row-parallel block: all-reduce (no SP) or reduce-scatter (SP). Each belongs to the op
  // of its matmul, so a recompute that re-runs the matmul re-runs it too.
  auto enter = [&](std::vector<WorkItem>& out, const char* name, int op) {
    if (!sp) return;
    out.push_back(sync(TpSync::kAllGather, name));
    out.back().op = op;
  };
  auto leave = [&](std::vector<WorkItem>& out, const char* name, int op) {
    if (!tp) return;
    out.push_back(sync(sp ? TpSync::kReduceScatter : TpSync::kAllReduce, name));
    out.back().op = op;
  };
  const TensorSet input = bit(Tensor::kInput);
  const TensorSet norm1_out = bit(Tensor::kNorm1Out);
  const TensorSet mlp_in = m.parallel_block ? norm1_out : bit(Tensor::kNorm2Out);
  // With dropout, the residual adds write the branch masks.
  const TensorSet attn_mask = m.dropout ? bit(Tensor::kAttnMask) : 0;
  const TensorSet mlp_mask = m.dropout ? bit(Tensor::kMlpMask) : 0;

  auto& f = w.forward;
  int op = 0;
  f.push_back(item("norm1", elementwise(norm_values, 2, d.act), MathClass::kOther, op++, input, norm1_out));
  enter(f, "tp.gather.attention", op);
  f.push_back(item("qkv", projection(d.tokens, d.hidden, qkv_width, d.act), MathClass::kLinear, op++, norm1_out, kQkvSet));
  attention_core_forward(f, d, s.flash_attention, m.dropout, op++);
  const int out_proj = op++;
  f.push_back(item("attention.out", projection(d.tokens, d.heads * d.head_dim, d.hidden, d.act), MathClass::kLinear,
                   out_proj, bit(Tensor::kContext), bit(Tensor::kOutProj)));
  if (!m.parallel_block) {
    leave(f, "tp.reduce.attention", out_proj);
    f.push_back(item("residual1", residual, MathClass::kOther, op++, input | bit(Tensor::kOutProj),
                     bit(Tensor::kNorm2In) | attn_mask));
    f.push_back(item("norm2", elementwise(norm_values, 2, d.act), MathClass::kOther, op++, bit(Tensor::kNorm2In),
                     bit(Tensor::kNorm2Out)));
    enter(f, "tp.gather.mlp", op);
  }
  f.push_back(item("mlp.up", projection(d.tokens, d.hidden, up_width, d.act), MathClass::kLinear, op++, mlp_in,
                   bit(Tensor::kMlpWi)));
  f.push_back(item("mlp.activation", elementwise(d.tokens * d.ffn, m.mlp == MlpKind::kSwiglu ? 3 : 2, d.act),
                   MathClass::kOther, op++, bit(Tensor::kMlpWi), bit(Tensor::kMlpAct)));
  const int down = op++;
  f.push_back(item("mlp.down", projection(d.tokens, d.ffn, d.hidden, d.act), MathClass::kLinear, down,
                   bit(Tensor::kMlpAct), bit(Tensor::kMlpWo)));
  leave(f, "tp.reduce.mlp", down);
  const TensorSet residual2_in =
      bit(Tensor::kMlpWo) | (m.parallel_block ? input | bit(Tensor::kOutProj) : bit(Tensor::kNorm2In));
  f.push_back(item("residual2", residual, MathClass::kOther, op++, residual2_in,
                   mlp_mask | (m.parallel_block ? attn_mask : 0)));

  auto& b = w.backward;
  b.push_back({"residual2.backward", residual_backward});
  enter(b, "tp.gather.mlp.backward", -1);
  linear_backward(b, "mlp.down", d.tokens, d.ffn, d.hidden, d.act);
  b.push_back({"mlp.activation.backward", elementwise(d.tokens * d.ffn, m.mlp == MlpKind::kSwiglu ? 5 : 3, d.act)});
  linear_backward(b, "mlp.up", d.tokens, d.hidden, up_width, d.act);
  if (!m.parallel_block) {
    leave(b, "tp.reduce.mlp.backward", -1);
    b.push_back({"norm2.backward", elementwise(norm_values, 4, d.act)});
    b.push_back({"residual1.backward", residual_backward});
    enter(b, "tp.gather.attention.backward", -1);
  }
  linear_backward(b, "attention.out", d.tokens, d.heads * d.head_dim, d.hidden, d.act);
  attention_core_backward(b, d, s.flash_attention, m.dropout);
  linear_backward(b, "qkv", d.tokens, d.hidden, qkv_width, d.act);
  leave(b, "tp.reduce.attention.backward", -1);
  b.push_back({"norm1.backward", elementwise(norm_values, 4, d.act)});
  count_host_calls(w);
  if (s.linear_input_bytes < s.act_bytes) add_fp8_casts(w, s);
  return w;
}

namespace {

/// Tensors an op's backward keeps that the op itself writes (saved after it runs): dropout
/// masks, the softmax output, flash attention's output. Every other kept tensor is saved by
/// the op that reads it, before that op runs.
constexpr TensorSet kSavedByProducer =
    bit(Tensor::kAttnMask) | bit(Tensor::kMlpMask) | bit(Tensor::kScores) | bit(Tensor::kContext);

/// True for the residual adds: an addition's backward needs none of its inputs, so it saves
/// nothing (every other op of the layer saves what it reads that the backward needs).
bool is_residual_add(const WorkItem& w) { return w.name.starts_with("residual"); }

/// PyTorch's early stop: the forward items that run before the last tensor the backward
/// saved is recomputed. An ATen op saves its inputs before it runs (the generated autograd
/// code builds its SavedVariables before dispatching), so it runs again only if a later op
/// needs its output or it saves an output of its own. An autograd Function saves when its
/// forward has returned: fp8 GEMMs (Transformer Engine's Linear) run again if they save.
std::vector<WorkItem> rerun_until_last_saved(const LayerWork& layer, bool linears_save_after_running) {
  int stop = 0;  // ops [0, stop) run again
  for (const WorkItem& w : layer.forward) {
    if ((w.out & layer.needed & kSavedByProducer) != 0) stop = std::max(stop, w.op + 1);
    if (is_residual_add(w) || (w.in & layer.needed) == 0) continue;
    const bool after = linears_save_after_running && w.math == MathClass::kLinear;
    stop = std::max(stop, after ? w.op + 1 : w.op);
  }
  std::vector<WorkItem> rerun;
  for (const WorkItem& w : layer.forward) {
    if (w.op < stop) rerun.push_back(w);
  }
  return rerun;
}

}  // namespace

LayerRemat apply_remat(const ModelSpec& m, const LayerWork& layer, Recompute policy, const Slicing& s) {
  LayerRemat out;
  // Checkpointed functions (Megatron's, PyTorch's) keep only the input and re-run the forward
  // in program order: all of it, or up to the last tensor the backward saved.
  if (reruns_whole_layer(policy) || reruns_until_last_saved(policy)) {
    out.kept = bit(Tensor::kInput);
    out.rerun = reruns_whole_layer(policy) ? layer.forward
                                           : rerun_until_last_saved(layer, s.linear_input_bytes < s.act_bytes);
    return out;
  }
  const TensorSet may_keep = saveable(policy, s.flash_attention, m.dropout, m.parallel_block);
  const TensorSet may_host = offloadable(policy);
  const TensorSet available = may_keep | may_host;
  // Walk the ops backwards: an op runs again if it writes a tensor still required; its
  // inputs that cannot be kept become required in turn.
  int ops = 0;
  for (const WorkItem& w : layer.forward) ops = std::max(ops, w.op + 1);
  std::vector<TensorSet> op_in(static_cast<std::size_t>(ops), 0), op_out(static_cast<std::size_t>(ops), 0);
  for (const WorkItem& w : layer.forward) {
    op_in[static_cast<std::size_t>(w.op)] |= w.in;
    op_out[static_cast<std::size_t>(w.op)] |= w.out;
  }
  TensorSet required = layer.needed & ~available;
  TensorSet read = layer.needed;  // what the backward and the re-run ops read
  std::vector<bool> rerun(static_cast<std::size_t>(ops), false);
  for (int o = ops - 1; o >= 0; --o) {
    const auto i = static_cast<std::size_t>(o);
    if ((op_out[i] & required) == 0) continue;
    rerun[i] = true;
    read |= op_in[i];
    required |= op_in[i] & ~available;
  }
  for (const WorkItem& w : layer.forward) {
    if (rerun[static_cast<std::size_t>(w.op)]) out.rerun.push_back(w);
  }
  out.kept = (may_keep & read) | bit(Tensor::kInput);
  out.host = may_host & read & ~out.kept;
  return out;
}

std::vector<WorkItem> recompute_work(const ModelSpec& m, const LayerWork& layer, Recompute policy, const Slicing& s) {
  return apply_remat(m, layer, policy, s).rerun;
}

EdgeWork edge_layers(const ModelSpec& m, const Slicing& s) {
  const Dims d = dims_of(m, s);
  const bool tp = s.tp > 1;
  const bool sp = s.sequence_parallel && tp;
  // The vocabulary is split over tp (vocab-parallel embedding and output layer).
  const double vocab = double(m.vocab) / s.tp;
  const double norm_values = d.norm_tokens * d.hidden;
  EdgeWork e;
  e.embedding_forward.push_back({"embedding.lookup", elementwise(d.tokens * d.hidden, 2, d.act)});
  if (tp) e.embedding_forward.push_back(sync(sp ? TpSync::kReduceScatter : TpSync::kAllReduce, "tp.reduce.embedding"));
  if (m.position == PositionEmbedding::kLearned) {
    e.embedding_forward.push_back({"embedding.position", elementwise(norm_values, 3, d.act)});
  }
  e.embedding_backward.push_back({"embedding.backward", elementwise(d.tokens * d.hidden, 3, d.act)});

  // Logits in the activations dtype, the loss in its own (training.precision.loss), its
  // kernels those of the software that trains (loss_kernels.hpp).
  const LossTraffic loss = loss_traffic(s.loss_kernel, d.act, s.loss_bytes);
  e.head_forward.push_back({"final_norm", elementwise(norm_values, 2, d.act)});
  if (sp) e.head_forward.push_back(sync(TpSync::kAllGather, "tp.gather.head"));
  e.head_forward.push_back({"logits", projection(d.tokens, d.hidden, vocab, d.act)});
  e.head_forward.push_back({"loss", elementwise(d.tokens * vocab, 1, loss.forward)});
  if (s.train_metrics > 0) {
    const double metrics = train_metrics_bytes(s.train_metrics, d.act, s.loss_bytes);
    e.head_forward.push_back({"train_metrics", elementwise(d.tokens * vocab, 1, metrics)});
  }
  e.head_backward.push_back({"loss.backward", elementwise(d.tokens * vocab, 1, loss.backward)});
  projection_backward(e.head_backward, "logits", d.tokens, d.hidden, vocab, d.act);
  if (tp) e.head_backward.push_back(sync(sp ? TpSync::kReduceScatter : TpSync::kAllReduce, "tp.reduce.head.backward"));
  e.head_backward.push_back({"final_norm.backward", elementwise(norm_values, 4, d.act)});
  return e;
}

}  // namespace podsim::workload
