#include "parallelism/step_bound.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "parallelism/layer_times.hpp"
#include "parallelism/stage_layers.hpp"
#include "parallelism/zero3_collectives.hpp"

namespace podsim::parallelism {

namespace {

/// The least time the compute stream spends on `segments` (as StageBuilder::run lays them out)
/// with tensor-parallel collectives among k = tp ranks, each taking `alone(op)`.
template <typename Alone>
SimTime stream_ps(const std::vector<Segment>& segments, int k, Alone&& alone) {
  SimTime sum = 0;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    if (s.collective && s.partner == Partner::kNext && i + 1 < segments.size()) {
      // The gather beside the first k − 1 slices of its matmul, the last slice after both.
      const SimTime m = segments[++i].duration_ps;
      const SimTime slices = m / k * (k - 1);
      sum += std::max(slices, alone(s.op)) + (m - slices);
    } else if (!s.collective && i + 1 < segments.size() && segments[i + 1].partner == Partner::kPrevious) {
      // The first slice, then the reduce-scatter beside the others; an all-reduce's all-gather after.
      const SimTime m = s.duration_ps;
      const SimTime first = k == 1 ? m : m / k;
      const CommOp op = segments[++i].op;
      sum += first + std::max(m - first, alone(CommOp::kReduceScatter)) +
             (op == CommOp::kAllReduce ? alone(CommOp::kAllGather) : 0);
    } else {
      sum += s.collective ? alone(s.op) : s.duration_ps;
    }
  }
  return sum;
}

}  // namespace

std::array<bool, 3> tp_ops_read(const workload::ModelSpec& model, const hardware::ChipSpec& given_chip,
                                const ParallelSpec& parallel, const TrainingSpec& training) {
  const LayerTimes t = layer_times(model, hardware::with_flash_kernel(given_chip, training.flash_kernel), parallel, training);
  std::array<bool, 3> read{};
  const auto note = [&](CommOp op) {
    read[static_cast<std::size_t>(op)] = true;
    return SimTime{0};
  };
  for (const auto* segments : {&t.layer_forward, &t.layer_recompute, &t.layer_backward, &t.embedding_forward,
                               &t.embedding_backward, &t.head_forward, &t.head_backward}) {
    stream_ps(*segments, parallel.tp, note);
  }
  return read;
}

SimTime step_lower_bound_ps(const workload::ModelSpec& model, const hardware::ChipSpec& given_chip,
                            const ParallelSpec& parallel, const TrainingSpec& training, const TpTimes* tp) {
  const hardware::ChipSpec chip = hardware::with_flash_kernel(given_chip, training.flash_kernel);
  const LayerTimes t = layer_times(model, chip, parallel, training);
  const std::vector<int> layers = virtual_stage_layers(model, parallel);
  const int total = parallel.pp * parallel.virtual_stages;
  // One microbatch's forward and backward compute through each virtual stage (as the program
  // builder runs them: the embedding before the first, the head after the last).
  std::vector<SimTime> forward(static_cast<std::size_t>(total)), backward(static_cast<std::size_t>(total));
  const int k = parallel.tp;
  for (int vs = 0; vs < total; ++vs) {
    const auto v = static_cast<std::size_t>(vs);
    const std::array<SimTime, 3> times =
        tp ? tp->per_stage[static_cast<std::size_t>(vs % parallel.pp)] : std::array<SimTime, 3>{};
    const auto alone = [&](CommOp op) {
      if (tp && !tp->measured[static_cast<std::size_t>(op)]) {
        throw std::logic_error("step_lower_bound_ps: a tensor-parallel operation its TpTimes did not measure");
      }
      return times[static_cast<std::size_t>(op)];
    };
    const auto on_stream = [&](const std::vector<Segment>& segments) { return stream_ps(segments, k, alone); };
    forward[v] = layers[v] * on_stream(t.layer_forward);
    backward[v] = layers[v] * (on_stream(t.layer_recompute) + on_stream(t.layer_backward));
    if (vs == 0) {
      forward[v] += on_stream(t.embedding_forward);
      backward[v] += on_stream(t.embedding_backward);
    }
    if (vs == total - 1) {
      forward[v] += on_stream(t.head_forward);
      backward[v] += on_stream(t.head_backward);
    }
  }
  // Σ over the virtual stages before each of each pass.
  std::vector<SimTime> forward_before(static_cast<std::size_t>(total) + 1, 0), backward_before = forward_before;
  for (std::size_t v = 0; v < forward.size(); ++v) {
    forward_before[v + 1] = forward_before[v] + forward[v];
    backward_before[v + 1] = backward_before[v] + backward[v];
  }
  const int m = microbatches(parallel, training);
  const SimTime optimizer_first = optimizer_time(model, chip, parallel, training, 0).time_ps;
  SimTime bound = 0;
  for (int s = 0; s < parallel.pp; ++s) {
    // Every schedule (pipeline_schedule.hpp) starts a stage with its first chunk's forward of
    // microbatch 0 and ends it with its first chunk's backward of the last microbatch; in
    // between it runs each chunk's forward and backward of every microbatch once.
    SimTime work = 0;
    for (int chunk = 0; chunk < parallel.virtual_stages; ++chunk) {
      const auto vs = static_cast<std::size_t>(chunk * parallel.pp + s);
      work += m * (forward[vs] + backward[vs]);
    }
    const SimTime start = forward_before[static_cast<std::size_t>(s)];
    const SimTime optimizer = optimizer_time(model, chip, parallel, training, s).time_ps;
    bound = std::max(bound, start + work + optimizer);
    if (s > 0) bound = std::max(bound, start + work + backward_before[static_cast<std::size_t>(s)] + optimizer_first);
  }
  return bound;
}

SimTime zero3_stream_bound_ps(const workload::ModelSpec& model, const ParallelSpec& parallel,
                              const TrainingSpec& training, const std::vector<Zero3Times>& times) {
  if (parallel.zero != 3 || parallel.dp < 2 || training.zero3_collectives != Zero3Collectives::kFlat) return 0;
  const std::vector<int> layers = virtual_stage_layers(model, parallel);
  const SimTime m = microbatches(parallel, training);
  // Gathered before each layer's forward and backward and reduced after its backward, in every
  // microbatch; or once a step (fsdp_gathers_once).
  const bool once = fsdp_gathers_once(parallel, training);
  SimTime bound = 0;
  for (int s = 0; s < parallel.pp && static_cast<std::size_t>(s) < times.size(); ++s) {
    SimTime on_stage = 0;
    for (int chunk = 0; chunk < parallel.virtual_stages; ++chunk) on_stage += layers[static_cast<std::size_t>(chunk * parallel.pp + s)];
    const Zero3Times& t = times[static_cast<std::size_t>(s)];
    const SimTime gathers = (once ? 1 : 2 * m) * on_stage * t.gather_ps;
    const SimTime reduces = (once ? 1 : m) * on_stage * t.reduce_ps;
    bound = std::max(bound, training.overlap.dp_serial ? gathers + reduces : std::max(gathers, reduces));
  }
  return bound;
}

}  // namespace podsim::parallelism
