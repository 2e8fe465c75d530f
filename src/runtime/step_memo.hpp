#pragma once

// Whole steps executed once per process. A sweep's points often build the same programs
// (sequence parallelism with tp 1, selective recompute that recomputes nothing flash attention
// does not already keep): their execution on the same machine, network settings and placement
// gives the same result, so it is kept and reused. Reused results are the ones executing would
// give, so outputs do not depend on which points a process ran before, or on the number of
// processes. A step is kept only once it passed the work budget, which depends on nothing the
// key does not hold, so a step taken from the memo skips the estimate.

#include <compare>
#include <cstdint>
#include <map>
#include <vector>

#include "parallelism/plan_digest.hpp"
#include "runtime/network_comm_model.hpp"
#include "runtime/step_executor.hpp"
#include "runtime/step_work.hpp"

namespace podsim::runtime {

/// What a step's execution depends on: the machine, network settings and placement
/// (CommMemo::context, in the memo's current generation), the programs, the microbatches
/// they are lengthened by, what is recorded and whether the work budget is enforced.
struct StepKey {
  std::uint64_t generation = 0;
  std::uint32_t context = 0;
  parallelism::PlanDigest plan;
  int missing = 0;
  Recording recording = Recording::kTotals;
  Budget budget = Budget::kEnforce;
  auto operator<=>(const StepKey&) const = default;
};

/// A step as executed, with what the communication model counted over it.
struct ExecutedStep {
  ExecutionResult execution;
  std::vector<LinkLoad> links;
  std::size_t simulated = 0;
  NetworkCommModel::ContentionCounts contention;
};

class StepMemo {
 public:
  const ExecutedStep* find(const StepKey& key) const;
  /// Keeps a step. Past a bound on what is kept (link loads summed over steps), everything
  /// is dropped and collected again: memory stays bounded on huge sweeps.
  void add(const StepKey& key, ExecutedStep step);
  std::size_t size() const { return entries_.size(); }

 private:
  static constexpr std::size_t kMaxLinkEntries = 8'000'000;  // ~130 MB
  std::map<StepKey, ExecutedStep> entries_;
  std::size_t link_entries_ = 0;
};

}  // namespace podsim::runtime
