#include "workload/layer_ops.hpp"

#include <string>

#include "util/error.hpp"

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
  if (s.sequence_parallel && s.seq_len % s.tp != 0) {
    throw InputError("with sequence parallelism, tp must divide seq_len");
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

void attention_core_forward(std::vector<WorkItem>& out, const Dims& d, bool flash, bool dropout) {
  const double heads = d.batch * d.heads;
  const double kv_values = d.batch * d.kv_heads * d.seq * d.head_dim;
  const double q_values = heads * d.seq * d.head_dim;
  if (flash) {
    // Scores and values in one kernel: two matmuls of s×s×d per head, Q/K/V read once,
    // the output written once; the s×s scores never reach HBM.
    out.push_back({"attention.flash", OpCost{2 * heads, d.seq, d.seq, d.head_dim,
                                              (2 * q_values + 2 * kv_values) * d.act}, TpSync::kNone, true});
    return;
  }
  const double scores = heads * d.seq * d.seq;
  out.push_back({"attention.scores", OpCost{heads, d.seq, d.seq, d.head_dim, (q_values + kv_values + scores) * d.act},
                 TpSync::kNone, true});
  out.push_back({"attention.softmax", elementwise(scores, 2, d.act), TpSync::kNone, true});  // read, write
  if (dropout) {
    // Read the probabilities, write a 1-byte mask and the dropped-out copy.
    out.push_back({"attention.dropout", OpCost{0, 0, 0, 0, scores * (2 * d.act + 1)}, TpSync::kNone, true});
  }
  out.push_back({"attention.values", OpCost{heads, d.seq, d.head_dim, d.seq, (scores + kv_values + q_values) * d.act},
                 TpSync::kNone, true});
}

void attention_core_backward(std::vector<WorkItem>& out, const Dims& d, bool flash, bool dropout) {
  const double heads = d.batch * d.heads;
  const double values = heads * d.seq * d.head_dim;
  if (flash) {
    // FlashAttention's backward recomputes the scores: 5 matmuls of s×s×d (2.5× forward).
    out.push_back({"attention.flash.backward", OpCost{5 * heads, d.seq, d.seq, d.head_dim, 8 * values * d.act}});
    return;
  }
  const double scores = heads * d.seq * d.seq;
  out.push_back({"attention.values.backward", OpCost{2 * heads, d.seq, d.seq, d.head_dim, (2 * scores + 4 * values) * d.act}});
  if (dropout) out.push_back({"attention.dropout.backward", OpCost{0, 0, 0, 0, scores * (2 * d.act + 1)}});
  out.push_back({"attention.softmax.backward", elementwise(scores, 3, d.act)});
  out.push_back({"attention.scores.backward", OpCost{2 * heads, d.seq, d.head_dim, d.seq, (scores + 4 * values) * d.act}});
}

}  // namespace

LayerWork transformer_layer(const ModelSpec& m, const Slicing& s) {
  const Dims d = dims_of(m, s);
  const bool tp = s.tp > 1;
  const bool sp = s.sequence_parallel && tp;
  LayerWork w;
  const double qkv_width = (d.heads + 2 * d.kv_heads) * d.head_dim;
  const double up_width = (m.mlp == MlpKind::kSwiglu ? 2 : 1) * d.ffn;
  const double norm_values = d.norm_tokens * d.hidden;
  // A residual add reads both inputs and writes the sum; with dropout on the branch it also
  // writes a 1-byte mask (Megatron's fused bias-dropout-add), and its backward reads it.
  const OpCost residual{0, 0, 0, 0, norm_values * (3 * d.act + (m.dropout ? 1 : 0))};
  const OpCost residual_backward{0, 0, 0, 0, norm_values * (2 * d.act + (m.dropout ? 1 : 0))};
  // Before a column-parallel block: all-gather the sequence shards (SP); after a
  // row-parallel block: all-reduce (no SP) or reduce-scatter (SP).
  auto enter = [&](std::vector<WorkItem>& out, const char* name) {
    if (sp) out.push_back(sync(TpSync::kAllGather, name));
  };
  auto leave = [&](std::vector<WorkItem>& out, const char* name) {
    if (tp) out.push_back(sync(sp ? TpSync::kReduceScatter : TpSync::kAllReduce, name));
  };

  auto& f = w.forward;
  f.push_back({"norm1", elementwise(norm_values, 2, d.act)});
  enter(f, "tp.gather.attention");
  f.push_back({"qkv", projection(d.tokens, d.hidden, qkv_width, d.act)});
  attention_core_forward(f, d, s.flash_attention, m.dropout);
  f.push_back({"attention.out", projection(d.tokens, d.heads * d.head_dim, d.hidden, d.act)});
  if (!m.parallel_block) {
    leave(f, "tp.reduce.attention");
    f.push_back({"residual1", residual});
    f.push_back({"norm2", elementwise(norm_values, 2, d.act)});
    enter(f, "tp.gather.mlp");
  }
  f.push_back({"mlp.up", projection(d.tokens, d.hidden, up_width, d.act)});
  f.push_back({"mlp.activation", elementwise(d.tokens * d.ffn, m.mlp == MlpKind::kSwiglu ? 3 : 2, d.act)});
  f.push_back({"mlp.down", projection(d.tokens, d.ffn, d.hidden, d.act)});
  leave(f, "tp.reduce.mlp");
  f.push_back({"residual2", residual});

  auto& b = w.backward;
  b.push_back({"residual2.backward", residual_backward});
  enter(b, "tp.gather.mlp.backward");
  projection_backward(b, "mlp.down", d.tokens, d.ffn, d.hidden, d.act);
  b.push_back({"mlp.activation.backward", elementwise(d.tokens * d.ffn, m.mlp == MlpKind::kSwiglu ? 5 : 3, d.act)});
  projection_backward(b, "mlp.up", d.tokens, d.hidden, up_width, d.act);
  if (!m.parallel_block) {
    leave(b, "tp.reduce.mlp.backward");
    b.push_back({"norm2.backward", elementwise(norm_values, 4, d.act)});
    b.push_back({"residual1.backward", residual_backward});
    enter(b, "tp.gather.attention.backward");
  }
  projection_backward(b, "attention.out", d.tokens, d.heads * d.head_dim, d.hidden, d.act);
  attention_core_backward(b, d, s.flash_attention, m.dropout);
  projection_backward(b, "qkv", d.tokens, d.hidden, qkv_width, d.act);
  leave(b, "tp.reduce.attention.backward");
  b.push_back({"norm1.backward", elementwise(norm_values, 4, d.act)});

  if (!s.flash_attention) {
    for (const WorkItem& item : w.forward) {
      if (item.attention_core) w.recompute_selective.push_back(item);
    }
  }
  return w;
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

  // Logits in the compute dtype, the loss in fp32 (4 bytes) as every framework does.
  e.head_forward.push_back({"final_norm", elementwise(norm_values, 2, d.act)});
  if (sp) e.head_forward.push_back(sync(TpSync::kAllGather, "tp.gather.head"));
  e.head_forward.push_back({"logits", projection(d.tokens, d.hidden, vocab, d.act)});
  e.head_forward.push_back({"loss", elementwise(d.tokens * vocab, 3, 4.0)});
  e.head_backward.push_back({"loss.backward", elementwise(d.tokens * vocab, 2, 4.0)});
  projection_backward(e.head_backward, "logits", d.tokens, d.hidden, vocab, d.act);
  if (tp) e.head_backward.push_back(sync(sp ? TpSync::kReduceScatter : TpSync::kAllReduce, "tp.reduce.head.backward"));
  e.head_backward.push_back({"final_norm.backward", elementwise(norm_values, 4, d.act)});
  return e;
}

}  // namespace podsim::workload
