#include "plan/plan_run.hpp"

#include <algorithm>

#include "partition/work_distribution.hpp"
#include "util/progress_line.hpp"

namespace podsim::plan {

const Outcome& PlanResult::best_outcome(std::size_t candidate) const {
  return contention[candidate] ? *contention[candidate] : *analytical[candidate];
}

PlanResult run_plan(const runtime::Scenario& base, const PlanOptions& options, const partition::Communicator& comm) {
  PlanResult result;
  result.candidates = enumerate_layouts(base, options.space);
  const std::size_t n = result.candidates.size();
  result.analytical.resize(n);
  result.contention.resize(n);

  std::vector<std::uint64_t> todo;
  for (std::size_t i = 0; i < n; ++i) {
    if (result.candidates[i].verdict == Verdict::kSimulate) todo.push_back(i);
  }
  const std::size_t second = std::min(options.contention_top, todo.size());
  ProgressLine progress("plan", "simulations", options.progress && comm.root(), todo.size() + second, 0, comm.size());
  std::uint64_t done = 0;

  runtime::CommMemo memo;  // layouts on the same mesh share their communication measurements
  auto phase = [&](const std::vector<std::uint64_t>& items, network::Fidelity fidelity,
                   std::vector<std::optional<Outcome>>& into) {
    partition::distribute(
        comm, items,
        [&](std::uint64_t i) { return simulate_layout(base, result.candidates[i].layout, fidelity, memo).serialize(); },
        [&](std::uint64_t i, const std::vector<char>& bytes) {
          into[i] = Outcome::deserialize(bytes);
          progress.update(++done, false);
        });
  };
  auto by_time = [&](const std::vector<std::optional<Outcome>>& outcomes) {
    return [&outcomes](std::size_t a, std::size_t b) {
      return outcomes[a]->step_s != outcomes[b]->step_s ? outcomes[a]->step_s < outcomes[b]->step_s : a < b;
    };
  };

  phase(todo, network::Fidelity::kAnalytical, result.analytical);
  std::vector<std::size_t> order(todo.begin(), todo.end());
  std::vector<std::uint64_t> again;
  if (comm.root()) {
    std::sort(order.begin(), order.end(), by_time(result.analytical));
    again.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(second));
  }
  // Only process 0 knows which layouts go again; the others just take what it hands out.
  phase(again, network::Fidelity::kContention, result.contention);
  progress.update(done, true);
  if (!comm.root()) return result;

  std::vector<std::size_t> top(again.begin(), again.end());
  std::sort(top.begin(), top.end(), by_time(result.contention));
  result.ranking = top;
  result.ranking.insert(result.ranking.end(), order.begin() + static_cast<std::ptrdiff_t>(second), order.end());
  return result;
}

}  // namespace podsim::plan
