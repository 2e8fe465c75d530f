#pragma once

// A lower bound on a step from its stage programs, before executing them: what no schedule of
// those tasks on those links can beat. The planner prunes with it a layout it has built but
// need not execute (docs/plan.md, "How the search prunes").

#include "parallelism/step_program.hpp"
#include "runtime/comm_model.hpp"

namespace podsim::runtime {

/// The step execute_step would simulate for `plan` on `comm` lasts at least the largest of:
/// - each stream's tasks one after another (a stream runs one task at a time; a compute task
///   runs at a rate ≤ 1, a communication takes at least its profile's time alone);
/// - with StepPlan::dp_serial, the dp gather and dp reduce streams' collectives together
///   (they take turns on one communicator);
/// - each link class's work: Σ over every communication of every stage of its bandwidth time
///   × the share of the class it loads at full speed (the shared-link solver never gives a
///   class more than it carries).
/// The profiles are asked of `comm` as the executor asks them (measured once, memoised).
SimTime program_bound_ps(const parallelism::StepPlan& plan, CommModel& comm);

}  // namespace podsim::runtime
