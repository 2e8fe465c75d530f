#include "plan/plan_run.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "output/prediction_band.hpp"
#include "parallelism/step_bound.hpp"
#include "runtime/comm_bound.hpp"
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

/// Estimated seconds of simulating every layout of `todo` on each process: all of them (an
/// exhaustive plan), or the fewest the search must simulate. Refuses a plan beyond
/// kPlanSecondsBudget (unless forced), with the estimate: how many layouts, the most expensive one.
double check_cost(const std::vector<Candidate>& candidates, const std::vector<std::uint64_t>& todo, std::size_t second,
                  const PlanOptions& options, const partition::Communicator& comm) {
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
  // The contention-aware network's layouts are not known yet: the dearest of the candidates.
  std::sort(contention.rbegin(), contention.rend());
  for (std::size_t k = 0; k < std::min(second, contention.size()); ++k) total += contention[k];
  // The search runs on process 0 alone; an exhaustive plan shares out its simulations.
  const int processes = options.exhaustive ? comm.size() : 1;
  const double per_process = total / processes;
  if (options.force || per_process <= kPlanSecondsBudget) return per_process;
  char line[160];
  std::snprintf(line, sizeof line, "about %.0f s of simulation on %d process%s (%zu layouts%s", per_process, processes,
                processes == 1 ? "" : "es", todo.size(), options.exhaustive ? "" : " its search expects to simulate");
  const std::size_t again = std::min(second, contention.size());
  throw InputError(std::string(options.exhaustive ? "this exhaustive plan would take " : "this plan would take ") +
                   line + " on the analytical network" +
                   (again > 0 ? ", " + std::to_string(again) + " again on the contention-aware one" : std::string()) +
                   "; the most expensive, " + describe(candidates[largest].layout) +
                   ", about " + units::format_fixed(cost(candidates[largest]), 1) +
                   " s); podsim's budget for a plan is " + units::format_fixed(kPlanSecondsBudget, 0) +
                   " s per process: try fewer --micro-batches, --contention-top 0, " +
                   (options.exhaustive ? "more processes (mpirun), no --exhaustive," : "a smaller --top,") + " or pass --force");
}

/// Appends, for each layout to simulate, its variants: with tensor parallelism the other TP
/// overlap where the stack can run both; with ZeRO-1/2 the other weight gather where the stack
/// can gather in the forward; each of those and both together (what a run tunes, it tunes
/// together); and, one at a time, tp placed on other physical axes. They are layouts of their
/// own, searched like the others.
void add_variants(std::vector<Candidate>& candidates, const topology::Topology& topo, const runtime::Scenario& base) {
  const std::size_t enumerated = candidates.size();
  for (std::size_t i = 0; i < enumerated; ++i) {
    if (candidates[i].verdict != Verdict::kSimulate) continue;
    const Layout l = candidates[i].layout;  // a copy: the candidates grow below
    std::vector<Layout> tries;
    const std::optional<Layout> overlap = other_tp_overlap(base, l);
    if (overlap) tries.push_back(*overlap);
    if (auto gather = other_param_gather(base, l)) {
      tries.push_back(*gather);
      if (overlap) tries.push_back(*other_param_gather(base, *overlap));
    }
    if (l.tp >= 2) {
      for (Layout& placed : other_tp_placements(topo, base, l)) tries.push_back(std::move(placed));
    }
    for (Layout& variant : tries) {
      Candidate v = candidates[i];
      v.layout = std::move(variant);
      candidates.push_back(std::move(v));
    }
  }
}

/// Each layout to simulate gets the lower bound of its compute alone (no network measured).
/// Layouts differing only in what it does not see (placement, where ZeRO-1/2 gathers its
/// weights) share one; the optimizer step depends on the ZeRO stage and group.
void set_compute_bounds(std::vector<Candidate>& candidates, const runtime::Scenario& base) {
  using Key = std::tuple<int, int, int, parallelism::PipelineSchedule, int, int, parallelism::Recompute, bool,
                         parallelism::TpOverlap, int, int>;
  std::map<Key, double> known;
  for (Candidate& c : candidates) {
    if (c.verdict != Verdict::kSimulate) continue;
    const Layout& l = c.layout;
    const Key key{l.dp,          l.tp,        l.pp,   l.schedule,         l.virtual_stages,      l.micro_batch,
                  l.recompute,   l.sequence_parallel, tp_overlap_of(base, l), l.zero, zero_state_group(l)};
    auto [at, fresh] = known.try_emplace(key, 0.0);
    if (fresh) {
      const runtime::Scenario s = apply(base, l);
      at->second = to_seconds(parallelism::step_lower_bound_ps(s.model, s.chip, s.parallel, s.training));
    }
    c.lower_bound_s = at->second;
  }
}

/// The tighter bound of a layout about to be simulated: its compute with the tensor-parallel
/// collectives its compute stream waits for, and (ZeRO-3) its data-parallel streams, each
/// collective timed alone on the analytical network (measurements kept in `memo`, which the
/// simulations then reuse).
class Refiner {
 public:
  /// `topo`: the base scenario's, with the chip's link efficiencies applied.
  Refiner(const runtime::Scenario& base, const topology::Topology& topo, runtime::CommMemo& memo)
      : base_(base), topo_(topo), memo_(memo) {}

  double bound_s(const Layout& l) {
    const runtime::Scenario s = apply(base_, l);
    // The mesh, and the buffer of tensor-parallel collectives (the micro batch); ZeRO-3's
    // per-layer collectives do not depend on the micro batch.
    const MeshKey mesh{l.dp, l.tp, l.pp, zero_state_group(l), l.tp_axes};
    // The operations its compute stream waits for depend on more than the mesh (sequence
    // parallelism, the TP overlap, recompute): they are part of the key.
    const std::array<bool, 3> ops = parallelism::tp_ops_read(s.model, s.chip, s.parallel, s.training);
    auto [tp, fresh] = tp_.try_emplace({mesh, l.micro_batch, ops});
    if (fresh) tp->second = runtime::tp_alone_times(s, topo_, memo_, ops);
    SimTime bound = parallelism::step_lower_bound_ps(s.model, s.chip, s.parallel, s.training,
                                                     tp->second.empty() ? nullptr : &tp->second);
    if (l.zero == 3) {
      auto [dp, fresh_dp] = zero3_.try_emplace(mesh);
      if (fresh_dp) dp->second = runtime::zero3_alone_times(s, topo_, memo_);
      bound = std::max(bound, parallelism::zero3_stream_bound_ps(s.model, s.parallel, s.training, dp->second));
    }
    return to_seconds(bound);
  }

 private:
  using MeshKey = std::tuple<int, int, int, int, std::vector<std::string>>;
  const runtime::Scenario& base_;
  const topology::Topology& topo_;
  runtime::CommMemo& memo_;
  std::map<std::tuple<MeshKey, int, std::array<bool, 3>>, parallelism::TpTimes> tp_;
  std::map<MeshKey, std::vector<parallelism::Zero3Times>> zero3_;
};

/// The families of the plan's verdict lines a layout belongs to (bits: pure data parallelism
/// without ZeRO, with ZeRO, pure model parallelism).
constexpr std::size_t kFamilies = 3;
unsigned families_of(const Layout& l) {
  return (pure_data(l) && l.zero == 0 ? 1u : 0u) | (pure_data(l) && l.zero > 0 ? 2u : 0u) | (pure_model(l) ? 4u : 0u);
}

/// Layouts simulated per batch of the search: fixed, so that what is simulated does not depend
/// on the number of processes; small, so that the bar falls soon.
constexpr std::size_t kBatch = 8;

/// The stage programs bound_layout built, kept for the layouts' simulations: a layout bounded
/// goes back in line and is simulated soon after, if at all, so the last few are kept; more
/// would only hold memory.
class KeptPrograms {
 public:
  static constexpr std::size_t kKept = kBatch;

  void keep(std::uint64_t layout, std::shared_ptr<const parallelism::StepPlan> programs) {
    kept_.emplace(layout, std::move(programs));
    order_.push_back(layout);
    if (order_.size() > kKept) {
      kept_.erase(order_.front());
      order_.pop_front();
    }
  }
  /// The programs kept for `layout`, or null.
  const parallelism::StepPlan* find(std::uint64_t layout) const {
    const auto it = kept_.find(layout);
    return it == kept_.end() ? nullptr : it->second.get();
  }

 private:
  std::map<std::uint64_t, std::shared_ptr<const parallelism::StepPlan>> kept_;
  std::deque<std::uint64_t> order_;
};

constexpr double kNever = std::numeric_limits<double>::infinity();

}  // namespace

PlanResult run_plan(const runtime::Scenario& base, const PlanOptions& options, const partition::Communicator& comm) {
  PlanResult result;
  result.candidates = enumerate_layouts(base, options.space);
  // One topology for placing the variants and measuring the bounds' collectives (link
  // efficiencies change no placement).
  const auto& eff = base.chip.efficiency;
  const topology::Topology topo(topology::with_link_efficiency(base.topology, eff.ici, eff.dcn));
  add_variants(result.candidates, topo, base);
  runtime::CommMemo memo;  // layouts on the same mesh share their communication measurements
  set_compute_bounds(result.candidates, base);
  Refiner refiner(base, topo, memo);
  const std::size_t n = result.candidates.size();
  result.analytical.resize(n);
  result.contention.resize(n);
  result.exact_ranks = options.exhaustive ? n : options.exact_ranks;

  // The layouts to simulate.
  std::vector<std::uint64_t> pool;
  for (std::size_t i = 0; i < n; ++i) {
    if (result.candidates[i].verdict == Verdict::kSimulate) pool.push_back(i);
  }
  const std::size_t second = std::min(options.contention_top, pool.size());
  const std::size_t keep = std::max<std::size_t>({options.exact_ranks, second, 1});
  if (options.exhaustive) {
    const double estimate = check_cost(result.candidates, pool, second, options, comm);
    if (options.progress && comm.root()) {
      std::fprintf(stderr, "[plan] %zu layouts, %zu to simulate (up to %zu again on the contention-aware network): about "
                           "%.0f s estimated on %d process%s\n",
                   n, pool.size(), second, estimate, comm.size(), comm.size() == 1 ? "" : "es");
    }
  } else {
    // What the search is expected to simulate: the `keep` layouts of the lowest bounds and
    // every other within the chip's error band of the lowest (their compute alone cannot tell
    // them apart).
    std::vector<std::uint64_t> fewest = pool;
    std::sort(fewest.begin(), fewest.end(), [&](std::uint64_t a, std::uint64_t b) {
      const double x = result.candidates[a].lower_bound_s, y = result.candidates[b].lower_bound_s;
      return x != y ? x < y : a < b;
    });
    const double band = 1 + output::prediction_band(base.chip).spread;
    std::size_t expected = 0;
    while (expected < fewest.size() &&
           (expected < keep ||
            result.candidates[fewest[expected]].lower_bound_s <= band * result.candidates[fewest.front()].lower_bound_s)) {
      ++expected;
    }
    fewest.resize(expected);
    const double estimate = check_cost(result.candidates, fewest, second, options, comm);
    if (options.progress && comm.root()) {
      std::fprintf(stderr, "[plan] %zu layouts, %zu that can run and fit, searched in the order of their lower bounds: "
                           "about %zu to simulate, %.0f s estimated%s\n",
                   n, pool.size(), fewest.size(), estimate,
                   comm.size() == 1 ? "" : " (the search runs on process 0; the other processes share the "
                                           "contention-aware confirmations)");
    }
  }
  ProgressLine progress("plan", "simulations", options.progress && comm.root(), pool.size() + second, 0, comm.size());
  std::uint64_t done = 0;

  KeptPrograms built;
  auto phase = [&](const partition::Communicator& among, const std::vector<std::uint64_t>& items,
                   network::Fidelity fidelity, std::vector<std::optional<Outcome>>& into) {
    partition::distribute(
        among, items,
        [&](std::uint64_t i) {
          return simulate_layout(base, result.candidates[i].layout, fidelity, memo, built.find(i)).serialize();
        },
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

  // Branch and bound: a layout is simulated while its bound is at most its bar, the slowest
  // step it could still matter for; bars only fall, so a layout passed over stays pruned.
  // Process 0 searches alone: its batches are too small to share (the others would wait for
  // its bounds between them), and it holds the measurements its bounds took, which other
  // processes would take again. An exhaustive plan shares its simulations out.
  const partition::Communicator alone(0, 1);
  const partition::Communicator& searchers = options.exhaustive ? comm : alone;
  std::vector<double> best_steps;  // the exact_ranks best analytical steps so far, ascending
  std::array<double, kFamilies> family_best;
  family_best.fill(kNever);
  const auto bar = [&](const Candidate& c) {
    double b = best_steps.size() < keep ? kNever : best_steps.back();
    const unsigned f = families_of(c.layout);
    for (std::size_t k = 0; k < kFamilies; ++k) {
      if (f & (1u << k)) b = std::max(b, family_best[k]);
    }
    return b;
  };
  const auto learn = [&](std::uint64_t i) {
    const double step = result.analytical[i]->step_s;
    best_steps.insert(std::upper_bound(best_steps.begin(), best_steps.end(), step), step);
    if (best_steps.size() > keep) best_steps.pop_back();
    const unsigned f = families_of(result.candidates[i].layout);
    for (std::size_t k = 0; k < kFamilies; ++k) {
      if (f & (1u << k)) family_best[k] = std::min(family_best[k], step);
    }
  };
  // The layouts not simulated yet, by (bound, index); a bound is refined (the Refiner's, then
  // its built programs', bound_layout) when the layout comes first, and the layout goes back in
  // line with it. Those passed over wait in `parked` for the tie's bar, which may be higher.
  std::set<std::pair<double, std::uint64_t>> queue, parked;
  std::vector<char> refined(n, 0);  // 0: enumeration's bound, 1: the Refiner's, 2: the programs'
  for (std::uint64_t i : pool) queue.emplace(result.candidates[i].lower_bound_s, i);
  // Layouts simulated on the analytical network so far, against options.max_simulations.
  std::size_t searched = 0;
  // Simulates, batch by batch, every layout whose bound is at most `limit` of it (re-read
  // after each batch).
  const auto search = [&](const std::function<double(const Candidate&)>& limit) {
    if (!options.exhaustive && !comm.root()) return;
    while (true) {
      std::vector<std::uint64_t> batch;
      // Process 0 decides to stop; an empty batch stops every process.
      if (comm.root() && result.stopped.empty()) {
        if (options.interrupted && options.interrupted()) {
          result.interrupted = true;
          result.stopped = "interrupted after " + std::to_string(searched) + " simulations";
        } else if (options.max_simulations > 0 && searched >= options.max_simulations) {
          result.stopped = "--max-simulations " + std::to_string(options.max_simulations);
        }
      }
      const std::size_t room = !result.stopped.empty() ? 0
                               : options.max_simulations > 0 ? std::min(kBatch, options.max_simulations - searched)
                                                              : kBatch;
      while (comm.root() && !queue.empty() && batch.size() < room) {
        const auto [bound, i] = *queue.begin();
        queue.erase(queue.begin());
        Candidate& c = result.candidates[i];
        if (!options.exhaustive && bound > limit(c)) {
          parked.emplace(bound, i);
        } else if (refined[i] == 0) {
          refined[i] = 1;
          c.lower_bound_s = std::max(c.lower_bound_s, refiner.bound_s(c.layout));
          queue.emplace(c.lower_bound_s, i);
        } else if (refined[i] == 1 && !options.exhaustive) {
          // Its programs built and its communication measured (kept in `memo` for its
          // simulation): what its streams and links take at the least.
          refined[i] = 2;
          BuiltLayout b = bound_layout(base, c.layout, memo);
          if (b.bound_s > c.lower_bound_s) {
            c.lower_bound_s = b.bound_s;
            c.bound_by_programs = true;
          }
          queue.emplace(c.lower_bound_s, i);
          // Kept for its simulation, which follows soon if it is within its bar.
          if (c.lower_bound_s <= limit(c)) built.keep(i, std::move(b.programs));
        } else {
          batch.push_back(i);
        }
      }
      if (searchers.sum(batch.empty() ? 0 : 1) == 0) return;
      phase(searchers, batch, network::Fidelity::kAnalytical, result.analytical);
      if (!comm.root()) continue;
      searched += batch.size();
      for (std::uint64_t i : batch) learn(i);
      // What is left to simulate at the bars as they stand (at most).
      std::uint64_t left = 0;
      for (const auto& [bound, i] : queue) left += options.exhaustive || bound <= limit(result.candidates[i]) ? 1 : 0;
      progress.set_total(done + left + second);
    }
  };
  search(bar);

  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i) {
    if (result.analytical[i]) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), by_time(result.analytical));
  std::vector<std::uint64_t> again;
  if (comm.root() && result.stopped.empty()) {
    for (std::size_t i : order) {
      if (again.size() == second) break;
      if (result.candidates[i].contention_within_budget) again.push_back(i);
    }
    progress.set_total(done + again.size());
  }
  // Only process 0 knows which layouts go again; the others just take what it hands out.
  phase(comm, again, network::Fidelity::kContention, result.contention);
  std::vector<std::size_t> top(again.begin(), again.end());
  std::sort(top.begin(), top.end(), by_time(result.contention));

  // The tie: every layout whose bound is within the error band of the winner's step.
  double tie = 0;
  if (comm.root() && !order.empty() && options.complete_tie && result.stopped.empty()) {
    const std::size_t winner = top.empty() ? order.front() : top.front();
    tie = result.best_outcome(winner).step_s * (1 + output::prediction_band(base.chip).spread);
  }
  // A stopped search leaves its queue as it was: those layouts were not reached.
  std::vector<char> unreached(n, 0);
  if (result.stopped.empty()) {
    queue.merge(parked);
    search([&](const Candidate&) { return tie; });
  } else {
    for (const auto& [bound, i] : queue) unreached[i] = 1;
    result.exact_ranks = 0;
  }
  progress.update(done, true);
  if (!comm.root()) return result;

  order.clear();
  for (std::size_t i = 0; i < n; ++i) {
    if (result.analytical[i]) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), by_time(result.analytical));
  result.ranking = top;
  for (std::size_t i : order) {
    if (!result.contention[i]) result.ranking.push_back(i);
  }
  for (std::uint64_t i : pool) {
    Candidate& c = result.candidates[i];
    if (result.analytical[i]) continue;
    if (unreached[i]) {
      c.verdict = Verdict::kUnsearched;
      c.reason = "not simulated: the search stopped (" + result.stopped + ") before it came to this layout (its step is " +
                 "at least " + units::format_fixed(c.lower_bound_s, 3) + " s)";
      continue;
    }
    c.verdict = Verdict::kPruned;
    const char* bound = c.bound_by_programs
                            ? "its stage programs: each stream's tasks one after another, each link's traffic at its rate"
                            : "its compute, bubble and the collectives its compute waits for, each alone";
    const char* bar_is = result.stopped.empty() ? "the slowest step the plan ranks exactly"
                                                : "the slowest step among the best the search had found when it stopped";
    c.reason = "no network runs its step in less than " + units::format_fixed(c.lower_bound_s, 3) + " s (" + bound +
               "), more than " + units::format_fixed(std::max(bar(c), tie), 3) + " s, " + bar_is;
  }
  return result;
}

}  // namespace podsim::plan
