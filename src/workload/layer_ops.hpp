#pragma once

#include <string>
#include <vector>

#include "hardware/compute_model.hpp"
#include "workload/model_spec.hpp"

namespace podsim::workload {

/// How one microbatch is cut up on one chip.
struct Slicing {
  int micro_batch = 1;
  int seq_len = 2048;
  int tp = 1;
  bool sequence_parallel = false;  ///< norms, dropout, residuals on seq_len/tp tokens
  bool flash_attention = false;    ///< attention fused: no score matrix in HBM
  double act_bytes = 2;            ///< bytes per activation value (compute dtype)
};

/// Tensor-parallel communication between ops (Megatron layout): kAllReduce without sequence
/// parallelism, all-gather / reduce-scatter pairs with it. Each moves the full, un-sharded
/// b·s·h activation.
enum class TpSync { kNone, kAllReduce, kAllGather, kReduceScatter };

/// One step of a chip's work on one microbatch: an op, or a tensor-parallel collective.
struct WorkItem {
  std::string name;
  hardware::OpCost cost;  ///< zero for a collective
  TpSync sync = TpSync::kNone;
  bool attention_core = false;  ///< part of what selective recompute re-runs
};

/// The work of one transformer layer on one chip for one microbatch.
struct LayerWork {
  std::vector<WorkItem> forward;
  std::vector<WorkItem> backward;
  /// What selective recompute re-runs before the backward: the attention core (nothing
  /// with flash attention, whose backward recomputes scores itself). Full recompute re-runs
  /// the whole forward, collectives included.
  std::vector<WorkItem> recompute_selective;
};

/// Builds a layer's ops. Throws InputError if tp does not divide heads or ffn_hidden.
LayerWork transformer_layer(const ModelSpec& model, const Slicing& slicing);

/// Work of the input embedding (first pipeline stage) and of the output head: final norm,
/// logits and cross-entropy (last stage), forward and backward.
struct EdgeWork {
  std::vector<WorkItem> embedding_forward;
  std::vector<WorkItem> embedding_backward;
  std::vector<WorkItem> head_forward;
  std::vector<WorkItem> head_backward;
};
EdgeWork edge_layers(const ModelSpec& model, const Slicing& slicing);

}  // namespace podsim::workload
