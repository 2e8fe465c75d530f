#pragma once
// What the closed-form tests of a training step share: communication in closed form, a model
// whose layers dominate, a test chip, and views of a step's time categories.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parallelism/program_builder.hpp"
#include "runtime/step_executor.hpp"

namespace podsim::closed_form {

using parallelism::ParallelSpec;
using parallelism::TrainingSpec;
using runtime::TimeCategory;

/// Communication in closed form: every collective or message takes α + S/B, each on links
/// of its own (no sharing) — or, with `shared`, its S/B on one link class every
/// communication shares.
class ClosedFormComm final : public runtime::CommModel {
 public:
  ClosedFormComm(SimTime alpha_ps, double bandwidth_Bps, bool shared = false)
      : alpha_ps_(alpha_ps), bw_(bandwidth_Bps), shared_(shared) {}
  const runtime::CommProfile& collective(parallelism::CommAxis, parallelism::CommOp, double bytes, int, int) override {
    return profile(bytes);
  }
  const runtime::CommProfile& send(int, int, double bytes) override { return profile(bytes); }
  int group_size(parallelism::CommAxis) const override { return 2; }
  std::size_t resources() const override { return 1; }
  SimTime cost(double bytes) const { return bw_ > 0 ? alpha_ps_ + transfer_time_ps(bytes, bw_) : 0; }

 private:
  const runtime::CommProfile& profile(double bytes) {
    profile_ = runtime::CommProfile{};
    if (bw_ <= 0) return profile_;
    if (!shared_) {
      profile_.latency_ps = cost(bytes);
      return profile_;
    }
    profile_.latency_ps = alpha_ps_;
    profile_.bandwidth_ps = transfer_time_ps(bytes, bw_);
    profile_.uses = {{0, 1.0}};
    return profile_;
  }

  SimTime alpha_ps_;
  double bw_;
  bool shared_;
  runtime::CommProfile profile_;
};

/// A GPT-style model whose embedding and head are negligible next to its layers (vocab 64),
/// so pipeline stages are uniform.
inline workload::ModelSpec uniform_model(int layers) {
  return workload::ModelSpec{"uniform", layers, 4096, 16384, 32, 32, 128, 64, 2048, workload::MlpKind::kGelu,
                             false, true, workload::PositionEmbedding::kRotary, workload::NormKind::kRmsNorm};
}

/// A collective task of `bytes` (S) on `axis`, run on `stream`.
inline parallelism::Task collective_task(parallelism::Stream stream, parallelism::CommAxis axis, parallelism::CommOp op,
                                         double bytes) {
  parallelism::Task t;
  t.kind = parallelism::TaskKind::kCollective;
  t.stream = stream;
  t.axis = axis;
  t.op = op;
  t.bytes = bytes;
  return t;
}

inline hardware::ChipSpec chip() {
  hardware::ChipSpec c;
  c.name = "test-chip";
  c.peak_flops = {{hardware::DType::kBf16, 275e12}, {hardware::DType::kFp16, 275e12}};
  c.hbm_capacity_bytes = 32.0 * (1ull << 30);
  c.hbm_bandwidth_Bps = 1200e9;
  c.matmul_tile = 128;
  c.efficiency = hardware::Efficiency{.matmul = 0.8, .memory = 0.85, .op_overhead_ps = 0, .ici = 1.0, .dcn = 1.0};
  return c;
}

inline runtime::ExecutionResult run(const workload::ModelSpec& m, const ParallelSpec& p, const TrainingSpec& t,
                             runtime::CommModel& comm) {
  const auto plan = parallelism::build_step(m, chip(), p, t);
  return runtime::execute_step(plan, comm, t.input, t.micro_batch);
}

inline SimTime category(const runtime::StageResult& s, TimeCategory c) { return s.time_ps[static_cast<std::size_t>(c)]; }
inline SimTime compute(const runtime::StageResult& s) {
  return category(s, TimeCategory::kForward) + category(s, TimeCategory::kBackward) +
         category(s, TimeCategory::kRecompute);
}

/// The stage that computes most (it sets the pace); its bubble is the pipeline's.
inline const runtime::StageResult& busiest(const runtime::ExecutionResult& r) {
  const runtime::StageResult* best = &r.stages.front();
  for (const auto& s : r.stages) best = compute(s) > compute(*best) ? &s : best;
  return *best;
}

/// One of the small layouts the step tests go over, and how to name it in a failure.
struct SmallLayout {
  ParallelSpec parallel;
  TrainingSpec training;
  std::string name;
};

/// dp 2 × tp {1, 4} (sequence parallelism with tp) × pp {1, 4} (interleaved over 2 chunks), each
/// with ZeRO {1, 3}, recompute none / selective / full and both TP overlaps.
inline std::vector<SmallLayout> small_layouts(int global_batch) {
  std::vector<SmallLayout> out;
  for (int pp : {1, 4}) {
    for (int zero : {1, 3}) {
      for (auto r : {parallelism::Recompute::kNone, parallelism::Recompute::kSelective, parallelism::Recompute::kFull}) {
        for (int tp : {1, 4}) {
          for (auto overlap : parallelism::kTpOverlaps) {
            SmallLayout l;
            l.parallel.dp = 2;
            l.parallel.tp = tp;
            l.parallel.pp = pp;
            l.parallel.zero = zero;
            l.parallel.sequence_parallel = tp > 1;
            l.parallel.schedule =
                pp > 1 ? parallelism::PipelineSchedule::kInterleaved : parallelism::PipelineSchedule::kOneFOneB;
            l.parallel.virtual_stages = pp > 1 ? 2 : 1;
            l.training.global_batch = global_batch;
            l.training.recompute = r;
            l.training.overlap.tp = overlap;
            l.name = "pp " + std::to_string(pp) + " zero " + std::to_string(zero) + " tp " + std::to_string(tp) +
                     " recompute " + std::string(parallelism::recompute_name(r)) + " overlap " +
                     std::string(parallelism::tp_overlap_name(overlap));
            out.push_back(l);
          }
        }
      }
    }
  }
  return out;
}

inline void expect_exact_partition(const runtime::ExecutionResult& r) {
  for (const auto& s : r.stages) {
    SimTime sum = 0;
    for (SimTime t : s.time_ps) sum += t;
    EXPECT_EQ(sum, r.step_ps) << "stage " << s.stage;
  }
}

}  // namespace podsim::closed_form
