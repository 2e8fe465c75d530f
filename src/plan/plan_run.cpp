#include "plan/plan_run.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <cstdio>

#include "partition/work_distribution.hpp"
#include "topology/topology.hpp"
#include "util/error.hpp"
#include "util/progress_line.hpp"
#include "util/units.hpp"

namespace podsim::plan {

const Outcome& PlanResult::best_outcome(std::size_t candidate) const {
  return contention[candidate] ? *contention[candidate] : *analytical[candidate];
}

namespace {

/// Estimated seconds of simulating the plan on each process. Refuses a plan beyond
/// kPlanSecondsBudget (unless forced), with the estimate: how many layouts, the most
/// expensive one.
double check_cost(const std::vector<Candidate>& candidates, const std::vector<std::uint64_t>& todo, std::size_t second,
                  std::size_t refine, const PlanOptions& options, const partition::Communicator& comm) {
  // Layouts of one dp × tp × pp and micro batch share their collectives' measurements: each
  // such set pays for its communication once.
  const auto key = [](const Layout& l) { return std::array<int, 4>{l.dp, l.tp, l.pp, l.micro_batch}; };
  std::set<std::array<int, 4>> paid;
  double total = 0;
  std::size_t largest = candidates.size();
  const auto cost = [](const Candidate& c) { return c.build_s + c.analytical_comm_s; };
  std::vector<double> contention;
  for (std::uint64_t i : todo) {
    const Candidate& c = candidates[i];
    total += c.build_s + (paid.insert(key(c.layout)).second ? c.analytical_comm_s : 0);
    if (c.contention_within_budget) contention.push_back(c.build_s + c.contention_comm_s);
    if (largest == candidates.size() || cost(c) > cost(candidates[largest])) largest = i;
  }
  // The contention-aware network's layouts are not known yet: the dearest of the candidates;
  // so are the layouts whose other TP overlap is tried (refine): their program again.
  std::sort(contention.rbegin(), contention.rend());
  for (std::size_t k = 0; k < std::min(second, contention.size()); ++k) total += contention[k];
  std::vector<double> builds;
  for (std::uint64_t i : todo) builds.push_back(candidates[i].build_s);
  std::sort(builds.rbegin(), builds.rend());
  for (std::size_t k = 0; k < std::min(refine, builds.size()); ++k) total += builds[k];
  const double per_process = total / comm.size();
  if (options.force || per_process <= kPlanSecondsBudget) return per_process;
  char line[160];
  std::snprintf(line, sizeof line, "about %.0f s of simulation on %d process%s (%zu layouts", per_process, comm.size(),
                comm.size() == 1 ? "" : "es", todo.size());
  const std::size_t again = std::min(second, contention.size());
  throw InputError(std::string("this plan would take ") + line + " on the analytical network" +
                   (again > 0 ? ", " + std::to_string(again) + " again on the contention-aware one" : std::string()) +
                   "; the most expensive, " + describe(candidates[largest].layout) +
                   ", about " + units::format_fixed(cost(candidates[largest]), 1) +
                   " s); podsim's budget for a plan is " + units::format_fixed(kPlanSecondsBudget, 0) +
                   " s per process: try fewer --micro-batches, --contention-top 0, more processes (mpirun), or pass --force");
}

std::array<int, 3> shape_of(const Layout& l) { return {l.dp, l.tp, l.pp}; }

/// Removes the refinement's variants (from `enumerated` on) that were not simulated, keeping
/// the ranking's indices pointing at the same layouts.
void drop_untried(PlanResult& r, std::size_t enumerated) {
  std::vector<std::size_t> new_index(r.candidates.size());
  std::size_t kept = 0;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    if (i >= enumerated && !r.analytical[i]) continue;
    new_index[i] = kept;
    if (kept != i) {
      r.candidates[kept] = std::move(r.candidates[i]);
      r.analytical[kept] = std::move(r.analytical[i]);
      r.contention[kept] = std::move(r.contention[i]);
    }
    ++kept;
  }
  r.candidates.resize(kept);
  r.analytical.resize(kept);
  r.contention.resize(kept);
  for (std::size_t& k : r.ranking) k = new_index[k];
}

}  // namespace

PlanResult run_plan(const runtime::Scenario& base, const PlanOptions& options, const partition::Communicator& comm) {
  PlanResult result;
  result.candidates = enumerate_layouts(base, options.space);
  const std::size_t enumerated = result.candidates.size();
  std::vector<std::uint64_t> todo;
  for (std::size_t i = 0; i < enumerated; ++i) {
    if (result.candidates[i].verdict == Verdict::kSimulate) todo.push_back(i);
  }
  // Knobs tried only on the best layout of each dp × tp × pp (refine), one at a time: the other TP
  // overlap where the stack can run both, and tensor parallelism placed on other physical axes
  // (a shape can lose only by its placement). Every process appends the same variants, so that
  // their indices agree; those not tried are dropped at the end.
  const topology::Topology topo(base.topology);
  std::map<std::size_t, std::vector<std::size_t>> variants_of;  // enumerated candidate → its variants
  std::size_t most_variants = 0;
  std::set<std::array<int, 3>> shapes;
  for (std::uint64_t i : todo) {
    std::vector<Layout> tries = other_tp_placements(topo, base, result.candidates[i].layout);
    if (auto other = other_tp_overlap(base, result.candidates[i].layout)) tries.insert(tries.begin(), *other);
    for (Layout& l : tries) {
      Candidate v = result.candidates[i];
      v.layout = std::move(l);
      variants_of[i].push_back(result.candidates.size());
      result.candidates.push_back(std::move(v));
    }
    most_variants = std::max(most_variants, tries.size());
    if (!tries.empty()) shapes.insert(shape_of(result.candidates[i].layout));
  }
  const std::size_t n = result.candidates.size();
  result.analytical.resize(n);
  result.contention.resize(n);

  const std::size_t second = std::min(options.contention_top, todo.size());
  const std::size_t refinable = shapes.size() * most_variants;
  const double estimate = check_cost(result.candidates, todo, second, refinable, options, comm);
  if (options.progress && comm.root()) {
    std::fprintf(stderr, "[plan] %zu layouts, %zu to simulate (up to %zu again on the contention-aware network): about %.0f s "
                         "estimated on %d process%s\n",
                 enumerated, todo.size(), second, estimate, comm.size(), comm.size() == 1 ? "" : "es");
  }
  ProgressLine progress("plan", "simulations", options.progress && comm.root(), todo.size() + refinable + second, 0,
                        comm.size());
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
  std::vector<std::uint64_t> refine;
  if (comm.root()) {
    std::sort(order.begin(), order.end(), by_time(result.analytical));
    std::set<std::array<int, 3>> refined;
    for (std::size_t i : order) {
      const auto v = variants_of.find(i);
      if (v == variants_of.end() || !refined.insert(shape_of(result.candidates[i].layout)).second) continue;
      refine.insert(refine.end(), v->second.begin(), v->second.end());
    }
    progress.set_total(todo.size() + refine.size() + second);
  }
  phase(refine, network::Fidelity::kAnalytical, result.analytical);
  std::vector<std::uint64_t> again;
  if (comm.root()) {
    order.insert(order.end(), refine.begin(), refine.end());
    std::sort(order.begin(), order.end(), by_time(result.analytical));
    for (std::size_t i : order) {
      if (again.size() == second) break;
      if (result.candidates[i].contention_within_budget) again.push_back(i);
    }
  }
  // Only process 0 knows which layouts go again; the others just take what it hands out.
  phase(again, network::Fidelity::kContention, result.contention);
  progress.update(done, true);
  if (!comm.root()) return result;

  std::vector<std::size_t> top(again.begin(), again.end());
  std::sort(top.begin(), top.end(), by_time(result.contention));
  result.ranking = top;
  for (std::size_t i : order) {
    if (!result.contention[i]) result.ranking.push_back(i);
  }
  drop_untried(result, enumerated);
  return result;
}

}  // namespace podsim::plan
