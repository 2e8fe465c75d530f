#include "parallelism/plan_digest.hpp"

#include <bit>

namespace podsim::parallelism {

namespace {

// A field added to these structs must join digest() below; their sizes say when one was.
static_assert(sizeof(Task) == 56, "a new Task field must join digest()");
static_assert(sizeof(StageProgram) == 64, "a new StageProgram field must join digest()");
static_assert(sizeof(StepPlan) == 80, "a new StepPlan field must join digest()");

/// Two lanes of xxHash64's round (Collet, xxhash.h: acc = rotl(acc + input·P2, 31)·P1), each
/// seeded apart, over 64-bit words, with its avalanche at the end.
class Hasher {
 public:
  void word(std::uint64_t v) {
    a_ = std::rotl(a_ + v * kP2, 31) * kP1;
    b_ = std::rotl(b_ + v * kP4, 27) * kP3;
  }
  void real(double v) { word(std::bit_cast<std::uint64_t>(v)); }
  PlanDigest result() const { return PlanDigest{avalanche(a_), avalanche(b_ ^ kP5)}; }

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
  std::uint64_t a_ = kP5;
  std::uint64_t b_ = kP1;
};

std::uint64_t small(std::uint64_t v, int shift) { return v << shift; }

}  // namespace

PlanDigest digest(const StepPlan& plan) {
  Hasher h;
  h.word(plan.stages.size());
  for (const StageProgram& p : plan.stages) {
    h.word(static_cast<std::uint64_t>(p.stage));
    h.word(static_cast<std::uint64_t>(p.host_bound_ps));
    h.word(p.tasks.size());
    for (const Task& t : p.tasks) {
      h.word(small(static_cast<std::uint64_t>(t.kind), 0) | small(static_cast<std::uint64_t>(t.stream), 8) |
             small(static_cast<std::uint64_t>(t.category), 16) | small(static_cast<std::uint64_t>(t.axis), 24) |
             small(static_cast<std::uint64_t>(t.op), 32) | small(t.gemm_share, 40) | small(t.memory_share, 48));
      h.word(static_cast<std::uint64_t>(t.duration_ps));
      h.real(t.bytes);
      h.real(t.flops);
      h.real(t.padded_flops);
      h.word(small(static_cast<std::uint32_t>(t.peer), 0) | small(t.message, 32));
      h.word(small(t.deps_begin, 0) | small(t.deps_end, 32));
    }
    h.word(p.deps.size());
    for (std::size_t i = 0; i + 1 < p.deps.size(); i += 2) h.word(small(p.deps[i], 0) | small(p.deps[i + 1], 32));
    if (p.deps.size() % 2 == 1) h.word(p.deps.back());
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
