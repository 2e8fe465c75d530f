#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "hardware/dtype.hpp"
#include "topology/device_mesh.hpp"
#include "util/error.hpp"

namespace podsim::parallelism {

enum class PipelineSchedule { kGPipe, kOneFOneB, kInterleaved };
enum class Recompute { kNone, kSelective, kFull };
inline constexpr std::array<PipelineSchedule, 3> kSchedules{PipelineSchedule::kGPipe, PipelineSchedule::kOneFOneB,
                                                            PipelineSchedule::kInterleaved};
inline constexpr std::array<Recompute, 3> kRecomputes{Recompute::kNone, Recompute::kSelective, Recompute::kFull};

/// How the chips split the work (the `parallelism:` section of a scenario).
struct ParallelSpec {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  PipelineSchedule schedule = PipelineSchedule::kOneFOneB;
  int virtual_stages = 1;  ///< model chunks per stage (interleaved 1F1B)
  int zero = 0;            ///< ZeRO stage 0..3 (3 = FSDP)
  bool sequence_parallel = false;
  /// Logical axis ("dp", "tp", "pp") → physical axes it should take first, in order.
  std::map<std::string, std::vector<std::string>> mesh;
};

/// Number formats of the step (mixed precision).
struct Precision {
  hardware::DType compute = hardware::DType::kBf16;    ///< sets the matmul peak and activations
  hardware::DType params = hardware::DType::kFp32;     ///< stored weights
  hardware::DType grads = hardware::DType::kBf16;      ///< stored gradients
  hardware::DType optimizer = hardware::DType::kFp32;  ///< Adam moments (and master weights)
  hardware::DType comm = hardware::DType::kBf16;       ///< what collectives move
};

/// Hosts feeding the first pipeline stage.
struct InputPipelineSpec {
  double samples_per_s = 0;  ///< per data-parallel replica; 0 = data is always ready
  int prefetch = 2;          ///< microbatches buffered ahead
};

/// The step to simulate (the `training:` section of a scenario).
struct TrainingSpec {
  int global_batch = 1;  ///< sequences per step
  int micro_batch = 1;   ///< sequences per microbatch per data-parallel replica
  int seq_len = 2048;
  Recompute recompute = Recompute::kNone;
  Precision precision;
  bool flash_attention = false;
  double dp_bucket_bytes = 25e6;  ///< gradient-reduction bucket
  bool overlap_dp = true;         ///< reduce gradients while the backward runs
  InputPipelineSpec input;
};

/// A layout that cannot run. `key` is the scenario key path at fault (e.g.
/// "parallelism.tp"), so config can point at its file and line.
class LayoutError : public InputError {
 public:
  LayoutError(std::string key, const std::string& message) : InputError(message), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

/// "gpipe", "1f1b", "interleaved" — as written in scenarios and outputs.
const char* schedule_name(PipelineSchedule s);
/// "no pipeline", "GPipe", "1F1B", "interleaved 1F1B" — for people.
const char* schedule_label(const ParallelSpec& p);
/// "none", "selective", "full".
const char* recompute_name(Recompute r);

/// The logical axes of a layout as DeviceMesh requests, in placement order: tensor
/// parallelism first (most traffic), then data, then pipeline, each with its `mesh:` preferences.
std::vector<topology::LogicalAxisRequest> mesh_requests(const ParallelSpec& p);

/// Microbatches per step: global_batch / (dp × micro_batch). Throws LayoutError.
int microbatches(const ParallelSpec& p, const TrainingSpec& t);

}  // namespace podsim::parallelism
