#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "memory/memory_model.hpp"
#include "parallelism/parallel_spec.hpp"
#include "runtime/scenario.hpp"
#include "topology/topology.hpp"

namespace podsim::plan {

/// The knobs the planner turns: everything `parallelism:` holds, plus the micro batch and
/// recompute of `training:`. The rest of the scenario (precision, flash attention, network
/// parameters, …) is the base's.
struct Layout {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  parallelism::PipelineSchedule schedule = parallelism::PipelineSchedule::kOneFOneB;
  int virtual_stages = 1;
  /// Interleaved: microbatches per group (ParallelSpec::microbatch_group); 0: pp. Set, to the
  /// smallest that runs, only where the microbatches are no multiple of pp and the stack runs
  /// groups (Megatron-Core).
  int microbatch_group = 0;
  int micro_batch = 1;
  int zero = 0;
  int zero_group = 0;  ///< hybrid sharding's ZeRO group (ParallelSpec::zero_group); 0: all of dp
  bool sequence_parallel = false;
  parallelism::Recompute recompute = parallelism::Recompute::kNone;
  /// Tensor-parallel overlap (training.overlap.tp) where the planner tried the other setting
  /// than the base scenario's (a variant, run_plan); unset: the base's.
  std::optional<parallelism::TpOverlap> tp_overlap;
  /// Physical axes tensor parallelism takes first (parallelism.mesh.tp) where the planner tried
  /// another placement than podsim's (a variant, run_plan); empty: the base's placement.
  std::vector<std::string> tp_axes;
  /// ZeRO-1/2's weight gather (training.overlap.param_gather) where the planner tried the other
  /// setting than the base scenario's (a variant, run_plan); unset: the base's.
  std::optional<bool> param_gather;
};

/// "no pipeline", "1F1B", "interleaved 1F1B v4", "interleaved 1F1B v4, groups of 6".
std::string schedule_text(const Layout& l);
/// "dp 8 × tp 8 × pp 16 · 1F1B · micro batch 1 · ZeRO-1 · SP · recompute selective"; hybrid
/// sharding: "ZeRO-3 in groups of 256"; a tried TP overlap: "· collective matmul" or "· TP blocking";
/// a tried placement: "· tp on z"; a tried weight gather: "· weights gathered in the forward" or
/// "· at the step's end".
std::string describe(const Layout& l);
/// The replicas `l`'s ZeRO state is divided among (parallelism::zero_state_group).
int zero_state_group(const Layout& l);
/// The physical axes `l`'s tp was asked to take first, joined ("z x"); "" for podsim's placement.
std::string tp_axes_text(const Layout& l, const char* separator = " ");
/// The base scenario with `l`'s knobs.
runtime::Scenario apply(const runtime::Scenario& base, const Layout& l);
/// The TP overlap `l` runs with on `base`: its own, else the base scenario's.
parallelism::TpOverlap tp_overlap_of(const runtime::Scenario& base, const Layout& l);
/// Whether `l` gathers ZeRO-1/2's updated weights in the next forward (its own, else the base's).
bool param_gather_of(const runtime::Scenario& base, const Layout& l);
/// `l` with the other weight gather, when `l` shards its optimizer (ZeRO-1 or 2) and the base
/// scenario's stack can gather in the forward (workload::StackProfile::param_gather_overlap).
std::optional<Layout> other_param_gather(const runtime::Scenario& base, const Layout& l);
/// `l` with the other TP overlap, when the base scenario's stack can run both and `l` has
/// tensor parallelism to overlap (collective matmul: workload::StackProfile::collective_matmul).
std::optional<Layout> other_tp_overlap(const runtime::Scenario& base, const Layout& l);
/// Where `l`'s tensor parallelism sits on `topo`: "z", "x y[2]" (topology::DeviceMesh::describe's
/// part for tp); "" without tensor parallelism or when it cannot be placed.
std::string tp_placement(const topology::Topology& topo, const runtime::Scenario& base, const Layout& l);
/// `l` with tensor parallelism placed elsewhere on the fast tier: each fast physical axis taken
/// first, and (tp larger than that axis) each other one after it; only placements that differ
/// from `l`'s own and from each other. None when the base scenario places tp itself
/// (parallelism.mesh.tp) or tp is 1.
std::vector<Layout> other_tp_placements(const topology::Topology& topo, const runtime::Scenario& base,
                                        const Layout& l);

/// What the planner made of a layout before simulating anything.
enum class Verdict : std::uint8_t {
  kSimulate,    ///< can run, fits, not dominated
  kCannotRun,   ///< breaks a layout rule (tp does not divide the heads, …) or cannot be placed
  kDoesNotFit,  ///< needs more HBM than a chip has
  kDominated,   ///< another layout that fits is at least as fast by construction
  kPruned,      ///< its lower bound is slower than every step the plan ranks exactly (run_plan)
  kUnsearched,  ///< the search stopped early (interrupted, --max-simulations) before reaching it
};
inline constexpr std::size_t kVerdicts = 6;
/// "simulate", "cannot run", "does not fit", "dominated", "pruned", "not searched"
const char* verdict_name(Verdict v);

struct Candidate {
  Layout layout;
  Verdict verdict = Verdict::kSimulate;
  std::string reason;  ///< why, unless kSimulate
  /// The row stands for every variant of its dp × tp × pp (the factorization itself cannot
  /// run); its other knobs are the defaults.
  bool whole_shape = false;
  /// Estimated seconds of simulating it on one core (kSimulate only; runtime/step_work.hpp):
  /// its topology and program (`build_s`), and its communication on the analytical and on the
  /// contention-aware network, which layouts of the same dp × tp × pp and micro batch share
  /// (CommMemo). The contention-aware network is not tried where its largest collective is
  /// beyond the budget.
  double build_s = 0;
  /// HBM the fullest chip needs (all but kCannotRun): what a layout that does not fit would
  /// need, for the plan's table and its figure.
  double memory_bytes = 0;
  double analytical_comm_s = 0;
  double contention_comm_s = 0;
  bool contention_within_budget = true;
  /// No network runs its step faster (parallelism::step_lower_bound_ps; kSimulate, kPruned, kUnsearched).
  double lower_bound_s = 0;
  /// lower_bound_s is its built stage programs' (runtime::program_bound_ps: each stream's tasks
  /// in turn, each link class's work), tighter than the one from its compute.
  bool bound_by_programs = false;
};

/// The layouts the plan's verdict lines compare with the winner: pure data parallelism
/// (tp = pp = 1; with ZeRO off, every chip a full replica, or on, fully sharded) and pure
/// model parallelism (dp = 1).
bool pure_data(const Layout& l);
bool pure_model(const Layout& l);

/// Knobs held at one value (e.g. what a published run states); the others are searched.
struct FixedKnobs {
  std::optional<int> dp, tp, pp, micro_batch, zero;
  /// Hybrid sharding's ZeRO group (ParallelSpec::zero_group), for the layouts with ZeRO on;
  /// unset: the base scenario's `parallelism.zero_group` if it gives one, else all of dp.
  std::optional<int> zero_group;
  std::optional<bool> sequence_parallel;
  std::optional<parallelism::Recompute> recompute;  ///< may be any remat policy
  /// The schedule and its chunks per stage, given together (1F1B with 1, interleaved with v).
  std::optional<std::pair<parallelism::PipelineSchedule, int>> schedule;
};

/// Which values of the enumerated knobs are tried.
struct SpaceOptions {
  std::vector<int> micro_batches{1, 2, 4, 8, 16};  ///< those dividing global_batch / dp
  std::vector<int> virtual_stages{2, 4};           ///< interleaved 1F1B model chunks per stage
  /// Share of each chip's HBM a layout must leave free to be recommended (0.05: a layout
  /// needing more than 95 % is "does not fit"). The memory model matches published figures
  /// within a few per cent; a layout closer to capacity than that is a coin toss.
  double memory_headroom = 0.05;
  bool gpipe = true;                               ///< try GPipe too
  bool plain_1f1b = true;                          ///< try plain 1F1B (else only interleaved)
  FixedKnobs fixed;
};

/// `--set` assignments that give a scenario the knobs of `l` (parallelism, micro batch,
/// recompute): what `podsim plan --emit` applies to the base scenario.
std::vector<std::string> layout_settings(const Layout& l);

/// Why `stages` do not fit once `headroom` of each chip's HBM is left free, or nothing.
std::optional<std::string> does_not_fit_with(std::vector<memory::MemoryBreakdown> stages, double headroom);

/// Every layout of the base scenario's chips: dp × tp × pp = chips (each factorization that
/// breaks a layout rule, cannot be placed on the topology, or whose largest collective is
/// beyond the work budget is one kCannotRun row); for the
/// rest, every micro batch dividing the batch; GPipe, 1F1B and interleaved 1F1B (pp > 1);
/// sequence parallelism on and off (tp > 1); ZeRO 0–3 (dp > 1); every remat policy of the
/// stack's menu (remat_menu.hpp). Each is checked against the layout rules and memory, then two
/// dominance rules of the model prune what need not be simulated (docs/plan.md):
/// - recompute only adds compute: with the other knobs equal, a policy is not simulated when
///   one that re-runs a subset of its ops (RematMenu::dominates) fits;
/// - ZeRO-2 runs ZeRO-1's program plus a reduce-scatter of every earlier microbatch's
///   gradients (it keeps only its shard of them): it is simulated only when ZeRO-1 does not
///   fit with the same recompute.
/// The order is deterministic (it numbers the candidates).
std::vector<Candidate> enumerate_layouts(const runtime::Scenario& base, const SpaceOptions& options);

}  // namespace podsim::plan
