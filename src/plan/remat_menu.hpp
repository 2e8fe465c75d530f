#pragma once

// Which remat (recompute) policies the planner tries, and which of them makes another pointless.

#include <cstddef>
#include <optional>
#include <vector>

#include "runtime/scenario.hpp"

namespace podsim::plan {

/// The remat policies the software stack of `base`'s chip can run, least recompute first.
/// Megatron-LM (GPUs): none, selective, full. XLA as MaxText runs it (TPUs): those three and
/// every `remat_policy` MaxText names (google/maxtext MaxText/configs/base.yml: minimal,
/// minimal_flash, save_dot_except_mlpwi, save_dot_except_mlp, save_qkv_proj, save_out_proj,
/// full = nothing_saveable), with its offloading ones (qkv_proj_offloaded, minimal_offloaded)
/// on a chip whose host link is known.
struct RematMenu {
  std::vector<workload::Recompute> policies;
  /// Whether policy `q` makes policy `r` pointless: `q` re-runs a subset of the forward ops `r`
  /// re-runs and offloads a subset of what `r` offloads, so once `q` fits, `r` (same layout
  /// otherwise) cannot be faster — only use less memory. Indices into `policies`.
  bool dominates(std::size_t q, std::size_t r) const;

  /// Per policy: the names of the ops it re-runs (sorted) and the tensors it offloads.
  std::vector<std::vector<std::string>> rerun;
  std::vector<workload::TensorSet> host;
};

/// The menu for the layout `s` (its tensor parallelism and slicing decide which ops exist);
/// only `fixed` when the search holds recompute at one policy.
RematMenu remat_menu(const runtime::Scenario& s, std::optional<workload::Recompute> fixed);

}  // namespace podsim::plan
