#include "parallelism/pipeline_schedule.hpp"

#include <algorithm>

namespace podsim::parallelism {

namespace {

/// Megatron-Core's schedule table: the k-th forward of an interleaved stage runs entry k,
/// (microbatch, chunk); its k-th backward entry k with the chunk reversed. Microbatches go in
/// groups of `group`, each through every chunk in turn; the last group holds the rest.
std::vector<PipelineAction> interleaved_table(int m, int v, int group) {
  std::vector<PipelineAction> table;
  table.reserve(static_cast<std::size_t>(m) * static_cast<std::size_t>(v));
  for (int first = 0; first < m; first += group) {
    const int end = first + group >= m ? m : first + group;
    for (int chunk = 0; chunk < v; ++chunk) {
      for (int mb = first; mb < end; ++mb) table.push_back(PipelineAction{true, mb, chunk});
    }
  }
  return table;
}

PipelineAction backward_of(PipelineAction a, int v) { return PipelineAction{false, a.microbatch, v - 1 - a.chunk}; }

}  // namespace

std::vector<PipelineAction> stage_schedule(PipelineSchedule schedule, int pp, int v, int m, int stage, int group) {
  std::vector<PipelineAction> order;
  if (schedule == PipelineSchedule::kGPipe) {
    for (int i = 0; i < m; ++i) order.push_back({true, i, 0});
    for (int i = 0; i < m; ++i) order.push_back({false, i, 0});
    return order;
  }
  if (schedule == PipelineSchedule::kOneFOneB || v == 1) {
    const int warmup = std::min(pp - stage - 1, m);
    int next_forward = 0;
    int next_backward = 0;
    for (; next_forward < warmup; ++next_forward) order.push_back({true, next_forward, 0});
    while (next_forward < m) {
      order.push_back({true, next_forward++, 0});
      order.push_back({false, next_backward++, 0});
    }
    while (next_backward < m) order.push_back({false, next_backward++, 0});
    return order;
  }
  const int n = group > 0 ? group : pp;
  const std::vector<PipelineAction> table = interleaved_table(m, v, n);
  const int total = m * v;
  const int warmup = std::min((pp - stage - 1) * 2 + (v - 1) * n, total);
  int f = 0;
  int b = 0;
  const auto at = [&](int k) { return table[static_cast<std::size_t>(k)]; };
  for (; f < warmup; ++f) order.push_back(at(f));
  while (f < total) {
    order.push_back(at(f++));
    order.push_back(backward_of(at(b++), v));
  }
  while (b < total) order.push_back(backward_of(at(b++), v));
  return order;
}

bool runs_in_groups_of(int pp, int microbatches, int group) {
  if (group < pp || group > microbatches) return false;
  const int rest = microbatches % group;
  return rest == 0 || rest >= pp;
}

int smallest_microbatch_group(int pp, int microbatches) {
  for (int n = pp; n <= microbatches; ++n) {
    if (runs_in_groups_of(pp, microbatches, n)) return n;
  }
  return 0;
}

int peak_in_flight(const std::vector<PipelineAction>& order) {
  int live = 0;
  int peak = 0;
  for (const auto& a : order) {
    live += a.forward ? 1 : -1;
    peak = std::max(peak, live);
  }
  return peak;
}

const std::vector<PipelineAction>& PipelineOrders::of(PipelineSchedule schedule, int pp, int virtual_stages,
                                                     int microbatches, int stage, int group) {
  auto [it, fresh] = kept_.try_emplace({schedule, pp, virtual_stages, microbatches, stage, group});
  if (fresh) it->second = stage_schedule(schedule, pp, virtual_stages, microbatches, stage, group);
  return it->second;
}

double peak_live(const std::vector<PipelineAction>& order, const std::vector<double>& weight) {
  double live = 0;
  double peak = 0;
  for (const auto& a : order) {
    const double w = weight[static_cast<std::size_t>(a.chunk)];
    live += a.forward ? w : -w;
    peak = std::max(peak, live);
  }
  return peak;
}

const char* schedule_label(const ParallelSpec& p) {
  if (p.pp == 1) return "no pipeline";
  switch (p.schedule) {
    case PipelineSchedule::kGPipe:
      return "GPipe";
    case PipelineSchedule::kInterleaved:
      return "interleaved 1F1B";
    default:
      return "1F1B";
  }
}

const char* schedule_name(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::kGPipe:
      return "gpipe";
    case PipelineSchedule::kInterleaved:
      return "interleaved";
    default:
      return "1f1b";
  }
}

hardware::DType activation_dtype(const Precision& p) {
  if (p.activations) return *p.activations;
  return hardware::dtype_bytes(p.compute) < 2 ? hardware::DType::kBf16 : p.compute;
}

hardware::DType attention_dtype(const Precision& p) { return p.fp8_attention ? p.compute : activation_dtype(p); }

hardware::DType reduce_dtype(const Precision& p) { return p.reduce.value_or(p.comm); }

std::vector<topology::LogicalAxisRequest> mesh_requests(const ParallelSpec& p) {
  auto preferred = [&](const char* name) {
    const auto it = p.mesh.find(name);
    return it == p.mesh.end() ? std::vector<std::string>{} : it->second;
  };
  if (hybrid_shard(p)) {
    // The replicas' axis first, so it takes the slow tiers (across slices and nodes only the
    // gradient shards travel) and the ZeRO group the fast ones its gathers need.
    const int shard = zero_shard(p);
    return {{"tp", p.tp, preferred("tp")},
            {"dp_replica", p.dp / shard, preferred("dp_replica")},
            {"dp", shard, preferred("dp")},
            {"pp", p.pp, preferred("pp")}};
  }
  return {{"tp", p.tp, preferred("tp")}, {"dp", p.dp, preferred("dp")}, {"pp", p.pp, preferred("pp")}};
}

int zero_shard(const ParallelSpec& p) { return p.zero >= 1 && p.zero_group > 0 ? p.zero_group : p.dp; }

int zero_state_group(const ParallelSpec& p) { return p.zero >= 1 ? zero_shard(p) : 1; }

bool hybrid_shard(const ParallelSpec& p) { return zero_shard(p) < p.dp; }

int microbatches(const ParallelSpec& p, const TrainingSpec& t) {
  const long long per_step = static_cast<long long>(p.dp) * t.micro_batch;
  if (t.global_batch % per_step != 0) {
    throw LayoutError("training.global_batch",
                      "global_batch (" + std::to_string(t.global_batch) + ") must be a multiple of dp × micro_batch (" +
                          std::to_string(p.dp) + " × " + std::to_string(t.micro_batch) + " = " + std::to_string(per_step) + ")");
  }
  return static_cast<int>(t.global_batch / per_step);
}

}  // namespace podsim::parallelism
