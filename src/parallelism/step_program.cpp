#include "parallelism/step_program.hpp"

#include <vector>

namespace podsim::parallelism {

std::string_view stream_name(Stream stream) {
  switch (stream) {
    case Stream::kCompute: return "compute";
    case Stream::kDpReduce: return "dp reduce";
    case Stream::kDpGather: return "dp gather";
    case Stream::kPpForward: return "pp forward";
    case Stream::kPpBackward: return "pp backward";
    case Stream::kOther: return "other comm";
    case Stream::kTp: return "tp comm";
  }
  return "?";
}

std::uint32_t StageProgram::add(Task task, std::span<const std::uint32_t> wait_for) {
  task.deps_begin = static_cast<std::uint32_t>(deps.size());
  deps.insert(deps.end(), wait_for.begin(), wait_for.end());
  task.deps_end = static_cast<std::uint32_t>(deps.size());
  tasks.push_back(task);
  return static_cast<std::uint32_t>(tasks.size() - 1);
}

void fuse_compute_runs(StageProgram& program) {
  const std::size_t n = program.tasks.size();
  std::vector<bool> waited_for(n, false);
  for (const std::uint32_t d : program.deps) waited_for[d] = true;
  std::vector<std::uint32_t> index(n);  // old task -> its task in the fused program
  std::size_t kept = 0;
  std::size_t deps = 0;
  constexpr std::uint32_t kNone = 0xFFFF'FFFFu;
  std::uint32_t previous = kNone;  // the compute stream's last task so far (old index)
  for (std::uint32_t i = 0; i < n; ++i) {
    Task t = program.tasks[i];
    if (t.stream == Stream::kCompute) {
      const bool merges = previous != kNone && t.kind == TaskKind::kCompute && t.deps_begin == t.deps_end &&
                          !waited_for[previous];
      if (merges) {
        Task& into = program.tasks[index[previous]];
        if (into.kind == TaskKind::kCompute && into.category == t.category) {
          // The merged run's HBM-bound and GEMM shares: each part's, weighted by its time.
          into.memory_share = merged_share(into.memory_share, into.duration_ps, t.memory_share, t.duration_ps);
          into.gemm_share = merged_share(into.gemm_share, into.duration_ps, t.gemm_share, t.duration_ps);
          into.duration_ps += t.duration_ps;
          into.flops += t.flops;
          into.padded_flops += t.padded_flops;
          index[i] = index[previous];
          previous = i;
          continue;
        }
      }
      previous = i;
    }
    // Kept: its dependencies (all earlier tasks) move down with it.
    const std::uint32_t begin = t.deps_begin;
    t.deps_begin = static_cast<std::uint32_t>(deps);
    for (std::uint32_t k = begin; k < t.deps_end; ++k) program.deps[deps++] = index[program.deps[k]];
    t.deps_end = static_cast<std::uint32_t>(deps);
    index[i] = static_cast<std::uint32_t>(kept);
    program.tasks[kept++] = t;
  }
  program.tasks.resize(kept);
  program.deps.resize(deps);
  program.tasks.shrink_to_fit();
  program.deps.shrink_to_fit();
}

}  // namespace podsim::parallelism
