#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
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
  /// The ranking is exact this far (the table's rows, --emit's layout); beyond, it holds only
  /// what the search had to simulate.
  std::size_t exact_ranks = 10;
  /// Simulate every layout, pruning nothing: what the search is checked against.
  bool exhaustive = false;
  /// Simulate every layout within the chip's error band of the winner (the tie line); off
  /// where only the winner is wanted (whatif --replan).
  bool complete_tie = true;
  bool progress = true;  ///< a progress line on stderr (process 0)
  bool force = false;    ///< simulate even beyond kPlanSecondsBudget
  /// Stop the search after this many layouts simulated on the analytical network (0: no
  /// limit) and answer with the best so far (PlanResult::stopped).
  std::size_t max_simulations = 0;
  /// Asked (on process 0) before each batch: true stops the search there and the plan answers
  /// with the best so far (Ctrl-C, util/interrupt.hpp). Empty: never.
  std::function<bool()> interrupted;
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
  /// The ranking's first exact_ranks are the best of every layout (PlanOptions::exact_ranks;
  /// every one when exhaustive); beyond, it holds only the layouts the search simulated.
  std::size_t exact_ranks = 0;
  /// Why the search stopped before it was complete ("interrupted after 12 simulations",
  /// "--max-simulations 5"); empty when it ran to the end. A stopped search ranks what it
  /// simulated on the analytical network, exactly nowhere (exact_ranks 0), runs no
  /// contention-aware confirmation and no tie; the layouts it had not reached are kUnsearched.
  std::string stopped;
  bool interrupted = false;  ///< it was Ctrl-C (PlanOptions::interrupted) that stopped it

  /// The outcome a candidate is ranked by (contention when it has one).
  const Outcome& best_outcome(std::size_t candidate) const;
};

/// Enumerates the layouts of `base` (its parallelism and micro batch/recompute are
/// replaced) and, for each with tensor parallelism, its variants with the other TP overlap and
/// with tp placed on other physical axes. Searches them by branch and bound (docs/plan.md):
/// in the order of their lower bounds (Candidate::lower_bound_s), in batches, it simulates on
/// the analytical network only the layouts whose bound could still beat the exact_ranks-th
/// best step, or the best pure data- or model-parallel one; the rest are kPruned. Then the top
/// ones go again on the contention-aware network, and finally every layout whose bound lies
/// within the chip's error band of the winner is simulated, so that the tie is complete.
/// The work is spread over the processes of `comm` (process 0 hands out layouts and ranks);
/// batches are of a fixed size, so the result does not depend on the number of processes.
/// options.exhaustive simulates everything. Before simulating, throws InputError with the
/// estimate when that (or, searching, simulating the exact_ranks layouts of the lowest bounds)
/// would take more than kPlanSecondsBudget per process, unless forced.
/// Layouts whose largest collective is beyond the budget on the contention-aware network keep
/// their analytical outcome.
PlanResult run_plan(const runtime::Scenario& base, const PlanOptions& options, const partition::Communicator& comm);

}  // namespace podsim::plan
