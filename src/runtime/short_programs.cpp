#include "runtime/short_programs.hpp"

namespace podsim::runtime {

int held_microbatches(const parallelism::ParallelSpec& parallel, int microbatches) {
  using parallelism::PipelineSchedule;
  // GPipe runs every forward, then every backward (with pp 1 too): two repeating runs.
  if (parallel.schedule == PipelineSchedule::kGPipe) return microbatches;
  // A ZeRO-3 pipeline's per-microbatch reduce-scatters queue up for many microbatches before
  // its state repeats (docs/sweep.md, "Speed"): short programs would end first, and the step be
  // built again.
  if (parallel.zero == 3 && parallel.pp > 1) return microbatches;
  // Groups of other than pp microbatches (microbatch_group): their last group may be short,
  // so the drain is not the step's with fewer periods.
  if (parallel.microbatch_group > 0) return microbatches;
  const bool interleaved = parallel.schedule == PipelineSchedule::kInterleaved && parallel.virtual_stages > 1;
  const int unit = interleaved ? 2 * parallel.pp : 4;
  // The warm-up (up to 2·pp·v microbatches on an interleaved pipeline's first stage) and one
  // unit beyond it, where the state repeats and the repeat finds periods left to add.
  const int least = 2 * parallel.pp * parallel.virtual_stages + unit;
  if (microbatches < least + unit) return microbatches;
  return least + (microbatches - least) % unit;
}

}  // namespace podsim::runtime
