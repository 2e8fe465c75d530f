#include "parallelism/stage_layers.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>

namespace podsim::parallelism {

namespace {

std::string n(long long v) { return std::to_string(v); }

/// Per-pipeline-stage counts → per-virtual-stage counts (each stage split evenly over its v
/// chunks, as Megatron asserts).
std::vector<int> split_over_chunks(const std::vector<int>& per_stage, int v, const char* key) {
  const int pp = static_cast<int>(per_stage.size());
  std::vector<int> out(static_cast<std::size_t>(pp * v));
  for (int stage = 0; stage < pp; ++stage) {
    const int layers = per_stage[static_cast<std::size_t>(stage)];
    if (layers % v != 0) {
      throw LayoutError(key, "pipeline stage " + n(stage) + " holds " + n(layers) +
                                 " layers, which its virtual_stages (" + n(v) + ") model chunks cannot share evenly");
    }
    for (int chunk = 0; chunk < v; ++chunk) out[static_cast<std::size_t>(chunk * pp + stage)] = layers / v;
  }
  return out;
}

std::vector<int> given(const workload::ModelSpec& m, const ParallelSpec& p) {
  const auto& s = p.stage_layers;
  const auto count = static_cast<long long>(s.size());
  if (p.first_stage_layers >= 0 || p.last_stage_layers >= 0) {
    throw LayoutError("parallelism.stage_layers", "give stage_layers or first/last_stage_layers, not both");
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] < 0) throw LayoutError("parallelism.stage_layers", "entry " + n(static_cast<long long>(i)) + " is negative");
  }
  const long long total = std::accumulate(s.begin(), s.end(), 0LL);
  if (total != m.layers) {
    throw LayoutError("parallelism.stage_layers",
                      "the entries add up to " + n(total) + " layers, but the model has " + n(m.layers));
  }
  if (count == static_cast<long long>(p.pp) * p.virtual_stages) return s;
  if (count == p.pp) return split_over_chunks(s, p.virtual_stages, "parallelism.stage_layers");
  throw LayoutError("parallelism.stage_layers",
                    "has " + n(count) + " entries; give one per pipeline stage (pp = " + n(p.pp) +
                        ") or one per virtual stage (pp × virtual_stages = " + n(p.pp * p.virtual_stages) + ")");
}

std::vector<int> first_last(const workload::ModelSpec& m, const ParallelSpec& p) {
  if (p.account_for_embedding || p.account_for_loss) {
    throw LayoutError("parallelism.first_stage_layers",
                      "first/last_stage_layers cannot be combined with account_for_embedding/loss (as in Megatron-LM)");
  }
  const bool first = p.first_stage_layers >= 0;
  const bool last = p.last_stage_layers >= 0 && p.pp > 1;
  const char* key = first ? "parallelism.first_stage_layers" : "parallelism.last_stage_layers";
  long long rest = m.layers - (first ? p.first_stage_layers : 0) - (last ? p.last_stage_layers : 0);
  const int middle = p.pp - (first ? 1 : 0) - (last ? 1 : 0);
  if (rest < 0 || (middle == 0 && rest != 0)) {
    throw LayoutError(key, "the first and last stages' layers do not add up to the model's " + n(m.layers));
  }
  if (middle > 0 && rest % middle != 0) {
    throw LayoutError(key, "the " + n(rest) + " layers left for the " + n(middle) +
                               " middle stages do not divide evenly (Megatron-LM requires it)");
  }
  std::vector<int> per_stage(static_cast<std::size_t>(p.pp), middle > 0 ? static_cast<int>(rest / middle) : 0);
  if (first) per_stage.front() = p.first_stage_layers;
  if (last) per_stage.back() = p.last_stage_layers;
  return split_over_chunks(per_stage, p.virtual_stages, key);
}

/// Megatron's account-for-embedding/loss split; nullopt-like empty vector when it does not divide.
std::vector<int> accounted(const workload::ModelSpec& m, const ParallelSpec& p, bool embedding, bool loss) {
  const int units = m.layers + (embedding ? 1 : 0) + (loss ? 1 : 0);
  if (units % p.pp != 0 || (units / p.pp) % p.virtual_stages != 0) return {};
  const int per_chunk = units / p.pp / p.virtual_stages;
  std::vector<int> out(static_cast<std::size_t>(p.pp * p.virtual_stages), per_chunk);
  if (embedding) --out.front();
  if (loss) --out.back();
  if (*std::min_element(out.begin(), out.end()) < 0) return {};
  return out;
}

/// Layers + 2 spread evenly over the virtual stages, extras on the middle ones, first and
/// last one fewer.
std::vector<int> balanced(const workload::ModelSpec& m, const ParallelSpec& p) {
  const int stages = p.pp * p.virtual_stages;
  const int units = m.layers + 2;
  std::vector<int> out(static_cast<std::size_t>(stages), units / stages);
  int extra = units % stages;
  // Middle virtual stages first (1 .. stages − 2), then the first, then the last.
  for (int vs = 1; vs + 1 < stages && extra > 0; ++vs, --extra) ++out[static_cast<std::size_t>(vs)];
  if (extra > 0) {
    ++out.front();
    --extra;
  }
  if (extra > 0) ++out.back();
  --out.front();
  --out.back();
  return out;
}

}  // namespace

std::vector<int> virtual_stage_layers(const workload::ModelSpec& m, const ParallelSpec& p) {
  const int stages = p.pp * p.virtual_stages;
  if (!p.stage_layers.empty()) return given(m, p);
  if (p.first_stage_layers >= 0 || p.last_stage_layers >= 0) return first_last(m, p);
  if (p.account_for_embedding || p.account_for_loss) {
    auto out = accounted(m, p, p.account_for_embedding, p.account_for_loss);
    if (out.empty()) {
      throw LayoutError("parallelism.pp", "the model's " + n(m.layers) + " layers plus the embedding/loss counted as layers do not divide over pp × virtual_stages (" + n(stages) + ")");
    }
    return out;
  }
  if (m.layers % stages == 0) return std::vector<int>(static_cast<std::size_t>(stages), m.layers / stages);
  auto out = accounted(m, p, true, true);
  if (out.empty() && p.virtual_stages > 1) {
    // Megatron-LM asserts that each stage's layers divide over its model chunks.
    throw LayoutError("parallelism.virtual_stages",
                      "the model's " + n(m.layers) + " layers do not split into pp × virtual_stages (" + n(p.pp) +
                          " × " + n(p.virtual_stages) + ") equal chunks, even with the embedding and loss counted as "
                          "layers; give parallelism.stage_layers to place them yourself");
  }
  // Split with the embedding and the loss counted as layers, a chunk may hold nothing else:
  // Megatron-Core runs that only when asked (Llama 3 405B's 126 layers over 16 × 8 chunks).
  const bool accounted_split = !out.empty();
  if (out.empty()) out = stages == 1 ? std::vector<int>{m.layers} : balanced(m, p);
  if (*std::min_element(out.begin(), out.end()) < 1) {
    throw LayoutError(p.virtual_stages > 1 ? "parallelism.virtual_stages" : "parallelism.pp",
                      "pp × virtual_stages (" + n(p.pp) + " × " + n(p.virtual_stages) + " = " + n(stages) +
                          ") leaves a stage without a layer of the model's " + n(m.layers) +
                          "; give parallelism.stage_layers to place them yourself" +
                          (accounted_split ? std::string(", or set parallelism.account_for_embedding and "
                                                         "account_for_loss to give the embedding and the loss a "
                                                         "chunk of their own")
                                           : std::string()));
  }
  return out;
}

std::vector<int> pipeline_stage_layers(const workload::ModelSpec& m, const ParallelSpec& p) {
  const auto per_vs = virtual_stage_layers(m, p);
  std::vector<int> out(static_cast<std::size_t>(p.pp), 0);
  for (std::size_t vs = 0; vs < per_vs.size(); ++vs) out[vs % static_cast<std::size_t>(p.pp)] += per_vs[vs];
  return out;
}

bool uniform_stages(const std::vector<int>& layers) {
  return std::adjacent_find(layers.begin(), layers.end(), std::not_equal_to<>()) == layers.end();
}

}  // namespace podsim::parallelism
