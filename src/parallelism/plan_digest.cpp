#include "parallelism/plan_digest.hpp"

#include <bit>
#include <cstring>
#include <type_traits>

namespace podsim::parallelism {

namespace {

// A field added to these structs must join digest() below; their sizes say when one was.
static_assert(sizeof(Task) == 56, "a new Task field must join digest()");
static_assert(sizeof(StageProgram) == 64, "a new StageProgram field must join digest()");
static_assert(sizeof(StepPlan) == 80, "a new StepPlan field must join digest()");

// Tasks and dependencies are hashed as the bytes they are: a Task has no padding (its fields'
// sizes add up to its own), so equal fields are equal bytes.
static_assert(std::is_trivially_copyable_v<Task>);
static_assert(sizeof(TaskKind) + sizeof(Stream) + sizeof(ComputeCategory) + sizeof(CommAxis) + sizeof(CommOp) +
                      sizeof(Task::gemm_share) + sizeof(Task::memory_share) + sizeof(Task::duration_ps) +
                      sizeof(Task::bytes) + sizeof(Task::flops) + sizeof(Task::padded_flops) + sizeof(Task::peer) +
                      sizeof(Task::message) + sizeof(Task::deps_begin) + sizeof(Task::deps_end) ==
                  sizeof(Task),
              "a Task with padding cannot be hashed as bytes");

/// Four lanes of xxHash64's round (Collet, xxhash.h: acc = rotl(acc + input·P2, 31)·P1), one
/// 64-bit word to each lane in turn so that the four chains of multiplies run side by side;
/// the digest's two halves mix the lanes in two different orders.
class Hasher {
 public:
  void word(std::uint64_t v) {
    std::uint64_t& lane = lanes_[next_++ & 3];
    lane = std::rotl(lane + v * kP2, 31) * kP1;
  }
  void real(double v) { word(std::bit_cast<std::uint64_t>(v)); }
  /// `n` bytes from `p`, as 64-bit words (the last one padded with zeros), then the count.
  void bytes(const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t v;
      std::memcpy(&v, c + i, 8);
      word(v);
    }
    if (i < n) {
      std::uint64_t v = 0;
      std::memcpy(&v, c + i, n - i);
      word(v);
    }
    word(n);
  }
  PlanDigest result() const {
    const auto& l = lanes_;
    return PlanDigest{avalanche(std::rotl(l[0], 1) + std::rotl(l[1], 7) + std::rotl(l[2], 12) + std::rotl(l[3], 18)),
                      avalanche((l[3] * kP3) ^ std::rotl(l[2] * kP4, 17) ^ std::rotl(l[1] * kP5, 29) ^
                                std::rotl(l[0] * kP1, 41))};
  }

 private:
  static constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ULL;
  static constexpr std::uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
  static constexpr std::uint64_t kP3 = 0x165667B19E3779F9ULL;
  static constexpr std::uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
  static constexpr std::uint64_t kP5 = 0x27D4EB2F165667C5ULL;
  static std::uint64_t avalanche(std::uint64_t h) {
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    return h ^ (h >> 32);
  }
  std::uint64_t lanes_[4] = {kP1 + kP2, kP2, 0, kP5};
  std::size_t next_ = 0;
};

}  // namespace

PlanDigest digest(const StepPlan& plan) {
  Hasher h;
  h.word(plan.stages.size());
  for (const StageProgram& p : plan.stages) {
    h.word(static_cast<std::uint64_t>(p.stage));
    h.word(static_cast<std::uint64_t>(p.host_bound_ps));
    h.bytes(p.tasks.data(), p.tasks.size() * sizeof(Task));
    h.bytes(p.deps.data(), p.deps.size() * sizeof(std::uint32_t));
  }
  h.word(static_cast<std::uint64_t>(plan.microbatches));
  h.word(plan.replicas_per_stage);
  h.word(plan.tasks_built);
  h.real(plan.tokens_per_step);
  h.real(plan.model_flops_per_step);
  h.word(static_cast<std::uint64_t>(plan.compute_units));
  h.real(plan.hbm_Bps);
  h.word((plan.dp_serial ? 1U : 0U) | (plan.gemm_waves ? 2U : 0U));
  return h.result();
}

}  // namespace podsim::parallelism
