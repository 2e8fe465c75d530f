#pragma once

// A step's programs as a 128-bit digest: two plans with the same digest execute the same way
// (every field the runtime reads is in it), so a process that simulates many steps — a
// sweep's points — can execute a plan once and reuse the result for every later point that
// builds the same programs (runtime/step_memo.hpp). Two plans that differ in any field have
// different digests unless two independent 64-bit hashes both collide.

#include <compare>
#include <cstdint>

#include "parallelism/step_program.hpp"

namespace podsim::parallelism {

struct PlanDigest {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  auto operator<=>(const PlanDigest&) const = default;
};

/// Every field of `plan`, its stages, their tasks and dependencies, in order.
PlanDigest digest(const StepPlan& plan);

}  // namespace podsim::parallelism
