#include "workload/model_spec.hpp"

namespace podsim::workload {

ParamCount count_params(const ModelSpec& m) {
  ParamCount p;
  const double h = m.hidden;
  const double attention = h * (m.heads + 2.0 * m.kv_heads) * m.head_dim + m.heads * double(m.head_dim) * h;
  const double mlp = (m.mlp == MlpKind::kSwiglu ? 3.0 : 2.0) * h * m.ffn_hidden;
  const double norm = m.norm == NormKind::kLayerNorm ? 2.0 * h : h;
  p.layer_matmul = attention + mlp;
  p.per_layer = attention + mlp + (m.parallel_block ? 1.0 : 2.0) * norm;
  if (m.linear_biases) {
    const double qkv = (m.heads + 2.0 * m.kv_heads) * m.head_dim;
    const double fc1 = (m.mlp == MlpKind::kSwiglu ? 2.0 : 1.0) * m.ffn_hidden;
    p.per_layer += qkv + h + fc1 + h;
  }
  p.embedding = double(m.vocab) * h;
  p.output = m.tied_embeddings ? 0.0 : double(m.vocab) * h;
  p.position = m.position == PositionEmbedding::kLearned ? double(m.seq_len) * h : 0.0;
  p.final_norm = norm;
  p.total = m.layers * p.per_layer + p.embedding + p.output + p.position + p.final_norm;
  return p;
}

std::vector<double> layer_param_tensors(const ModelSpec& m) {
  const double h = m.hidden;
  const double qkv = (m.heads + 2.0 * m.kv_heads) * m.head_dim;
  const double fc1 = (m.mlp == MlpKind::kSwiglu ? 2.0 : 1.0) * m.ffn_hidden;
  std::vector<double> tensors;
  const auto norm = [&] {
    tensors.push_back(h);
    if (m.norm == NormKind::kLayerNorm) tensors.push_back(h);  // its bias
  };
  const auto linear = [&](double rows, double cols) {
    tensors.push_back(rows * cols);
    if (m.linear_biases) tensors.push_back(cols);
  };
  norm();
  linear(h, qkv);
  linear(m.heads * double(m.head_dim), h);
  if (!m.parallel_block) norm();
  linear(h, fc1);
  linear(m.ffn_hidden, h);
  return tensors;
}

double layers_forward_flops_per_token(const ModelSpec& m, int seq_len) {
  const ParamCount p = count_params(m);
  return 2.0 * m.layers * p.layer_matmul + 4.0 * m.layers * double(seq_len) * m.heads * m.head_dim;
}

double model_flops_per_token(const ModelSpec& m, int seq_len) {
  // Forward and backward (twice the forward) of the layers, and of the output projection.
  return 3.0 * (layers_forward_flops_per_token(m, seq_len) + 2.0 * double(m.vocab) * m.hidden);
}

}  // namespace podsim::workload
