#pragma once

#include <string>
#include <vector>

namespace podsim::workload {

enum class MlpKind { kGelu, kSwiglu };  ///< 2 matrices (up, down) or 3 (gate, up, down)
enum class NormKind { kLayerNorm, kRmsNorm };
enum class PositionEmbedding { kLearned, kRotary };

/// A decoder-only transformer (configs/models/*.yaml).
struct ModelSpec {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int ffn_hidden = 0;
  int heads = 0;
  int kv_heads = 0;  ///< = heads for multi-head attention; fewer for GQA, 1 for MQA
  int head_dim = 0;
  int vocab = 0;
  int seq_len = 0;  ///< the training sequence length the model was defined with
  MlpKind mlp = MlpKind::kGelu;
  bool parallel_block = false;  ///< PaLM: attention and MLP side by side from one norm
  bool tied_embeddings = true;
  PositionEmbedding position = PositionEmbedding::kLearned;
  NormKind norm = NormKind::kLayerNorm;
  /// Dropout on the attention probabilities and on both residual branches (Megatron-LM's GPT
  /// recipes train with it; LLaMA-style models and MaxText without). Costs memory passes.
  bool dropout = false;
  /// The linear layers have biases (Megatron-LM's GPT: --add-bias-linear, its default; GPT-2
  /// and GPT-3). LLaMA-style models, PaLM and MPT have none.
  bool linear_biases = false;
  bool operator==(const ModelSpec&) const = default;
};

/// Parameters by part.
struct ParamCount {
  double per_layer = 0;        ///< attention + MLP weights (and biases), norms
  double layer_matmul = 0;     ///< per layer: the weight matrices only
  double embedding = 0;        ///< vocab × hidden (input)
  double output = 0;           ///< vocab × hidden if untied, else 0
  double position = 0;         ///< learned positions: seq_len × hidden
  double final_norm = 0;
  double total = 0;
};

/// Counts parameters. Norms are counted (2·hidden for a layernorm with bias, hidden for
/// rmsnorm); linear layers have biases only when model.linear_biases.
ParamCount count_params(const ModelSpec& model);

/// The parameter tensors of one transformer layer, in the order its forward first uses them,
/// as Megatron-LM holds them (element counts, summing to ParamCount::per_layer): the norm's
/// weight (and bias), the fused QKV matrix (and bias), the attention output projection (and
/// bias), the second norm (none in a parallel block), the first MLP matrix (gate and up fused
/// for SwiGLU, as Megatron's fc1), the second. What a framework that gathers or reduces
/// tensor by tensor (DeepSpeed's ZeRO-3) issues one collective for.
std::vector<double> layer_param_tensors(const ModelSpec& model);

/// Matmul FLOPs per token, the standard "model FLOPs": 6 × (every weight matrix a token
/// meets, the output projection included) + 12 · layers · seq_len · heads · head_dim for
/// attention scores and values, counted without causal masking (as Megatron-LM's Eq. 7,
/// PaLM's and MaxText's counts do).
double model_flops_per_token(const ModelSpec& model, int seq_len);

/// FLOPs per token of one forward of the transformer layers alone: 2 × layer matmul
/// weights + 4 · seq_len · heads · head_dim per layer (what full recompute repeats).
double layers_forward_flops_per_token(const ModelSpec& model, int seq_len);

}  // namespace podsim::workload
