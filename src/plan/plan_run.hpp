#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "partition/communicator.hpp"
#include "plan/layout_space.hpp"
#include "plan/outcome.hpp"

namespace podsim::plan {

struct PlanOptions {
  SpaceOptions space;
  /// The best layouts on the analytical network that are simulated again on the
  /// contention-aware one (0: none).
  std::size_t contention_top = 10;
  bool progress = true;  ///< a progress line on stderr (process 0)
  bool force = false;    ///< simulate even beyond kPlanSecondsBudget
};

/// Estimated seconds of simulation a plan may take on one core (split over the processes)
/// without --force: the layouts' costs as enumerate_layouts estimates them.
inline constexpr double kPlanSecondsBudget = 1200;

/// Every layout, what became of it, and the ranking (complete on process 0 only).
struct PlanResult {
  std::vector<Candidate> candidates;
  std::vector<std::optional<Outcome>> analytical;  ///< per candidate, when simulated
  std::vector<std::optional<Outcome>> contention;  ///< per candidate, when simulated again
  /// Simulated candidates, best first: those simulated on the contention-aware network by
  /// that step time, then the others by their analytical step time (ties: enumeration order).
  std::vector<std::size_t> ranking;

  /// The outcome a candidate is ranked by (contention when it has one).
  const Outcome& best_outcome(std::size_t candidate) const;
};

/// Enumerates the layouts of `base` (its parallelism and micro batch/recompute are
/// replaced), simulates every one worth it on the analytical network, then the top ones
/// on the contention-aware network, spread over the processes of `comm` (process 0 hands
/// out layouts and ranks). The result does not depend on the number of processes. Before
/// simulating, throws InputError with the estimate when the plan would take more than
/// kPlanSecondsBudget per process (unless options.force). Layouts whose largest collective
/// is beyond the budget on the contention-aware network keep their analytical outcome.
PlanResult run_plan(const runtime::Scenario& base, const PlanOptions& options, const partition::Communicator& comm);

}  // namespace podsim::plan
