// The planner: which layouts it enumerates, how it prunes, and that its ranking is sound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "config/overrides.hpp"
#include "config/scenario_config.hpp"
#include "memory/memory_model.hpp"
#include "output/prediction_band.hpp"
#include "parallelism/pipeline_schedule.hpp"
#include "parallelism/program_builder.hpp"
#include "partition/communicator.hpp"
#include "plan/layout_space.hpp"
#include "plan/plan_report.hpp"
#include "plan/plan_run.hpp"
#include "plan/remat_menu.hpp"
#include "topology/topology.hpp"
#include "workload/stack_profile.hpp"

namespace podsim::plan {
namespace {

const std::filesystem::path kRoot = PODSIM_SOURCE_DIR;

/// The scenario of configs/models/`model`, configs/hardware/`hardware` and topologies/`topology`
/// (names without .yaml), with `overrides`.
runtime::Scenario composed(const std::string& model, const std::string& hardware, const std::string& topology,
                           int global_batch, const std::vector<std::string>& overrides = {}) {
  config::ScenarioParts parts;
  parts.model = kRoot / "configs/models" / (model + ".yaml");
  parts.hardware = kRoot / "configs/hardware" / (hardware + ".yaml");
  parts.topology = kRoot / "topologies" / (topology + ".yaml");
  parts.global_batch = global_batch;
  return config::compose_scenario(parts, config::parse_overrides(overrides)).scenario;
}

/// Llama 2 7B on a 4x4 TPU v5e slice (16 chips): small enough to plan in a moment.
runtime::Scenario small_base(int global_batch = 64) { return composed("llama2-7b", "tpu-v5e", "tpu-v5e-4x4", global_batch); }

bool fits(const runtime::Scenario& s) {
  return !memory::does_not_fit(memory::stage_memory(s.model, s.chip, s.parallel, s.training));
}

/// Options of a plan run in a test: no progress line, `contention_top` confirmed.
PlanOptions quiet(std::size_t contention_top) {
  PlanOptions options;
  options.contention_top = contention_top;
  options.progress = false;
  return options;
}

/// describe() of every layout `r` enumerated (its variants included).
std::set<std::string> descriptions(const PlanResult& r) {
  std::set<std::string> out;
  for (const Candidate& c : r.candidates) out.insert(describe(c.layout));
  return out;
}

TEST(LayoutSpace, EveryFactorizationAppearsAndSimulatedLayoutsRunAndFit) {
  const runtime::Scenario base = small_base();
  const auto candidates = enumerate_layouts(base, SpaceOptions{});
  std::set<std::tuple<int, int, int>> shapes;
  for (const auto& c : candidates) {
    const Layout& l = c.layout;
    EXPECT_EQ(l.dp * l.tp * l.pp, 16) << describe(l);
    shapes.insert({l.dp, l.tp, l.pp});
    if (c.verdict == Verdict::kSimulate) {
      const runtime::Scenario s = apply(base, l);
      EXPECT_NO_THROW(parallelism::check_layout(s.model, s.chip, s.parallel, s.training, 16)) << describe(l);
      EXPECT_TRUE(fits(s)) << describe(l);
      EXPECT_TRUE(c.reason.empty());
    } else {
      EXPECT_FALSE(c.reason.empty()) << describe(l);
    }
    if (l.tp == 1) {
      EXPECT_FALSE(l.sequence_parallel);
    }
    if (l.dp == 1) {
      EXPECT_EQ(l.zero, 0);
    }
    EXPECT_EQ(l.zero_group, 0) << describe(l);  // one slice: no hybrid sharding to try
    if (l.pp == 1) {
      EXPECT_EQ(l.virtual_stages, 1);
    }
  }
  // 16 = 2^4: the ordered factorizations into three are C(6, 2) = 15.
  EXPECT_EQ(shapes.size(), 15U);
}

TEST(LayoutSpace, InterleavedStepsNoMultipleOfPpRunInMegatronCoresMicrobatchGroups) {
  // GPT 1.7B on 16 A100s, batch 40: dp 4 × pp 4 leaves 10 microbatches per micro batch of 1, no
  // multiple of pp. Megatron-Core runs them in its smallest group (5: a last group of 2 would be
  // shorter than pp); Megatron-LM of 2021 cannot, and the layout is refused with the reason.
  for (const char* stack : {"megatron-core", "megatron-lm"}) {
    const runtime::Scenario base = composed("gpt-1.7b", "a100-80gb", "a100-dgx-8x8", 40,
                                            {std::string("training.stack=") + stack, "topology.nodes=2"});
    const bool groups = workload::stack_profile(base.training.stack).microbatch_groups;
    int grouped = 0;
    int simulated = 0;
    int refused = 0;
    for (const auto& c : enumerate_layouts(base, SpaceOptions{})) {
      const Layout& l = c.layout;
      if (c.whole_shape || l.schedule != parallelism::PipelineSchedule::kInterleaved) {
        EXPECT_EQ(l.microbatch_group, 0) << describe(l);
        continue;
      }
      const int m = 40 / (l.dp * l.micro_batch);
      if (m % l.pp == 0 || !groups) {
        EXPECT_EQ(l.microbatch_group, 0) << describe(l);
        if (m % l.pp != 0) {
          EXPECT_EQ(c.verdict, Verdict::kCannotRun) << describe(l);
          refused += c.reason.find("multiple of pp") != std::string::npos ? 1 : 0;  // or an earlier problem
        }
        continue;
      }
      EXPECT_EQ(l.microbatch_group, parallelism::smallest_microbatch_group(l.pp, m)) << describe(l);
      if (l.microbatch_group == 0) continue;  // fewer microbatches than pp: no group runs them
      ++grouped;
      EXPECT_EQ(c.reason.find("multiple of pp"), std::string::npos) << c.reason;
      EXPECT_NE(describe(l).find(", groups of " + std::to_string(l.microbatch_group)), std::string::npos);
      if (l.dp == 4 && l.pp == 4 && l.micro_batch == 1) {
        EXPECT_EQ(l.microbatch_group, 5);
      }
      if (c.verdict == Verdict::kSimulate) {
        const runtime::Scenario s = apply(base, l);
        EXPECT_NO_THROW(parallelism::check_layout(s.model, s.chip, s.parallel, s.training, 16)) << describe(l);
        ++simulated;
      }
    }
    EXPECT_EQ(grouped > 0, groups) << stack;
    EXPECT_EQ(simulated > 0, groups) << stack;
    EXPECT_EQ(refused > 0, !groups) << stack;
  }
}

TEST(LayoutSpace, AScenariosZeroGroupHoldsForEveryLayoutWithZeroOn) {
  // Hybrid sharding's group is the scenario's, not searched: ZeRO layouts whose dp 4 divides
  // shard in groups of 4; one whose dp it does not divide cannot run, and says why.
  runtime::Scenario base = small_base();
  base.parallel.zero_group = 4;
  bool hybrid = false;
  bool refused = false;
  for (const auto& c : enumerate_layouts(base, SpaceOptions{})) {
    const Layout& l = c.layout;
    if (l.zero == 0) {
      EXPECT_EQ(l.zero_group, 0) << describe(l);
      EXPECT_EQ(zero_state_group(l), 1) << describe(l);
      continue;
    }
    EXPECT_EQ(l.zero_group, 4) << describe(l);
    if (l.dp % 4 != 0) {
      EXPECT_EQ(c.verdict, Verdict::kCannotRun) << describe(l);
      refused = refused || c.reason.find("parallelism.zero_group") != std::string::npos;  // or an earlier problem
    } else if (l.dp > 4) {
      EXPECT_NE(describe(l).find("in groups of 4"), std::string::npos) << describe(l);
      EXPECT_EQ(zero_state_group(l), 4);
      hybrid = true;
    }
  }
  EXPECT_TRUE(hybrid);
  EXPECT_TRUE(refused);
}

TEST(LayoutSpace, OnSeveralSlicesZeroAlsoShardsInsideEachSlice) {
  // Two 4x4 slices over DCN: every ZeRO layout is tried with one group of all dp replicas and,
  // where the 2 slices divide dp into groups of more than one, with one group per slice
  // (hybrid sharding); nothing else. Without ZeRO there is no group.
  runtime::Scenario base = small_base();
  const auto grid = std::get<topology::GridSpec>(base.topology.layout);
  base.topology.layout = topology::MultisliceSpec{2, grid, topology::LinkSpec{3.125e9, 10'000'000}};
  base.topology.name = "two-v5e-4x4";
  using Key = std::tuple<int, int, int, int, int, int, bool, int, int>;
  std::map<Key, std::set<int>> groups;
  std::size_t hybrid_simulated = 0;
  for (const auto& c : enumerate_layouts(base, SpaceOptions{})) {
    if (c.whole_shape) continue;
    const Layout& l = c.layout;
    EXPECT_EQ(l.dp * l.tp * l.pp, 32) << describe(l);
    if (l.zero == 0) {
      EXPECT_EQ(l.zero_group, 0) << describe(l);
      continue;
    }
    groups[{l.dp, l.tp, l.pp, static_cast<int>(l.schedule), l.virtual_stages, l.micro_batch, l.sequence_parallel,
            l.zero, static_cast<int>(l.recompute)}]
        .insert(l.zero_group);
    if (l.zero_group > 0 && c.verdict == Verdict::kSimulate) {
      ++hybrid_simulated;
      EXPECT_NE(describe(l).find("in groups of " + std::to_string(l.dp / 2)), std::string::npos) << describe(l);
      // Each slice holds one copy of the state, so a chip keeps twice the flat shard of it.
      Layout flat = l;
      flat.zero_group = 0;
      const auto mine = memory::stage_memory(base.model, base.chip, apply(base, l).parallel, apply(base, l).training);
      const auto theirs =
          memory::stage_memory(base.model, base.chip, apply(base, flat).parallel, apply(base, flat).training);
      EXPECT_GT(mine[0].total, theirs[0].total) << describe(l);
    }
  }
  ASSERT_FALSE(groups.empty());
  for (const auto& [key, seen] : groups) {
    const int dp = std::get<0>(key);
    const std::set<int> expected = dp % 2 == 0 && dp / 2 > 1 ? std::set<int>{0, dp / 2} : std::set<int>{0};
    EXPECT_EQ(seen, expected) << "dp " << dp;
  }
  EXPECT_GT(hybrid_simulated, 0U);
}

TEST(RematMenu, TheStacksPoliciesLeastRecomputeFirstAndSubsetsDominate) {
  using workload::Recompute;
  // TPU v5e runs XLA (MaxText): Megatron's three and MaxText's named policies, with the
  // offloading ones since the chip's host link is known.
  const runtime::Scenario tpu = small_base();
  const RematMenu xla = remat_menu(tpu, std::nullopt);
  const std::set<Recompute> named(xla.policies.begin(), xla.policies.end());
  for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull, Recompute::kNothingSaveable,
                      Recompute::kMinimal, Recompute::kMinimalFlash, Recompute::kSaveDotExceptMlpwi,
                      Recompute::kSaveDotExceptMlp, Recompute::kSaveQkvProj, Recompute::kSaveOutProj,
                      Recompute::kQkvProjOffloaded, Recompute::kMinimalOffloaded}) {
    EXPECT_EQ(named.count(r), 1U) << workload::recompute_name(r);
  }
  EXPECT_EQ(named.count(Recompute::kEarlyStop), 0U);  // PyTorch's checkpoint, not XLA's
  // Re-running nothing dominates every policy; Megatron's full (every forward op again) none.
  EXPECT_EQ(xla.policies.front(), Recompute::kNone);
  for (std::size_t r = 0; r < xla.policies.size(); ++r) {
    EXPECT_TRUE(xla.dominates(0, r)) << workload::recompute_name(xla.policies[r]);
  }
  const auto index = [&](Recompute r) {
    return static_cast<std::size_t>(std::find(xla.policies.begin(), xla.policies.end(), r) - xla.policies.begin());
  };
  // minimal keeps every weight matmul's output, nothing_saveable none: minimal re-runs less.
  EXPECT_TRUE(xla.dominates(index(Recompute::kMinimal), index(Recompute::kNothingSaveable)));
  EXPECT_FALSE(xla.dominates(index(Recompute::kNothingSaveable), index(Recompute::kMinimal)));
  // Offloading moves what minimal keeps to the host: it re-runs the same, so neither dominates
  // the other (one pays the host link, the other HBM).
  EXPECT_FALSE(xla.dominates(index(Recompute::kMinimalOffloaded), index(Recompute::kMinimal)));
  // Least re-run work first: a policy never comes after one it dominates.
  for (std::size_t q = 0; q < xla.policies.size(); ++q) {
    for (std::size_t r = 0; r < q; ++r) {
      if (xla.rerun[q] != xla.rerun[r] || xla.host[q] != xla.host[r]) {
        EXPECT_FALSE(xla.dominates(q, r)) << workload::recompute_name(xla.policies[q]) << " before "
                                          << workload::recompute_name(xla.policies[r]);
      }
    }
  }
  // A GPU runs Megatron-LM: its three levels.
  runtime::Scenario gpu = tpu;
  gpu.chip.stack = hardware::SoftwareStack::kMegatron;
  EXPECT_EQ(remat_menu(gpu, std::nullopt).policies,
            (std::vector<Recompute>{Recompute::kNone, Recompute::kSelective, Recompute::kFull}));
  // A fixed policy is the whole menu.
  EXPECT_EQ(remat_menu(tpu, Recompute::kMinimalFlash).policies, std::vector<Recompute>{Recompute::kMinimalFlash});
}

TEST(LayoutSpace, DominanceKeepsOnlyTheLeastRecomputeThatFitsAndZero2WhenItSavesRecompute) {
  const runtime::Scenario base = small_base();
  const auto candidates = enumerate_layouts(base, SpaceOptions{});
  // Group the variants that differ only in recompute.
  using Key = std::tuple<int, int, int, int, int, int, bool, int, int>;
  std::map<Key, std::vector<const Candidate*>> groups;
  for (const auto& c : candidates) {
    if (c.whole_shape) continue;
    const Layout& l = c.layout;
    groups[{l.dp, l.tp, l.pp, static_cast<int>(l.schedule), l.virtual_stages, l.micro_batch, l.sequence_parallel,
            l.zero, l.zero_group}]
        .push_back(&c);
  }
  std::size_t dominated = 0;
  for (const auto& [key, variants] : groups) {
    const RematMenu menu = remat_menu(apply(base, variants.front()->layout), std::nullopt);
    ASSERT_EQ(variants.size(), menu.policies.size());  // every policy of the stack, in the menu's order
    // A variant is dominated by recompute exactly when a policy that re-runs a subset of its ops fits.
    std::vector<std::size_t> fitting;
    for (std::size_t r = 0; r < variants.size(); ++r) {
      const Candidate* c = variants[r];
      EXPECT_EQ(c->layout.recompute, menu.policies[r]);
      if (c->verdict == Verdict::kCannotRun || c->verdict == Verdict::kDoesNotFit) continue;
      const bool beaten = std::any_of(fitting.begin(), fitting.end(), [&](std::size_t q) { return menu.dominates(q, r); });
      if (beaten) {
        EXPECT_EQ(c->verdict, Verdict::kDominated) << describe(c->layout);
        EXPECT_NE(c->reason.find("recomputes at least what recompute"), std::string::npos) << c->reason;
        ++dominated;
      } else {
        EXPECT_EQ(c->reason.find("recomputes at least"), std::string::npos) << describe(c->layout);
        fitting.push_back(r);
      }
    }
  }
  EXPECT_GT(dominated, 0U);
  for (const auto& c : candidates) {
    if (c.layout.zero == 2 && c.verdict == Verdict::kDominated && c.reason.find("ZeRO-1") != std::string::npos) {
      // Its ZeRO-1 twin with the same recompute fits and is simulated.
      Layout twin = c.layout;
      twin.zero = 1;
      const auto it = std::find_if(candidates.begin(), candidates.end(), [&](const Candidate& o) {
        return describe(o.layout) == describe(twin);
      });
      ASSERT_NE(it, candidates.end());
      EXPECT_EQ(it->verdict, Verdict::kSimulate) << describe(twin);
    }
  }
}

TEST(LayoutSpace, AFactorizationThatCannotRunIsOneRowWithTheReason) {
  // 60 sequences cannot be split over 16 or 8 replicas.
  const auto candidates = enumerate_layouts(small_base(60), SpaceOptions{});
  std::size_t rows = 0;
  for (const auto& c : candidates) {
    if (c.layout.dp == 16) {
      ++rows;
      EXPECT_TRUE(c.whole_shape);
      EXPECT_EQ(c.verdict, Verdict::kCannotRun);
      EXPECT_NE(c.reason.find("global_batch"), std::string::npos) << c.reason;
    }
  }
  EXPECT_EQ(rows, 1U);
}

TEST(Plan, RankingIsSortedAndTheWinnerBeatsEveryOtherSimulatedLayout) {
  const runtime::Scenario base = small_base();
  const partition::Communicator alone(0, 1);
  PlanOptions options;
  options.contention_top = 3;
  options.progress = false;
  const PlanResult r = run_plan(base, options, alone);
  ASSERT_GT(r.ranking.size(), 3U);
  for (std::size_t i = 0; i + 1 < r.ranking.size(); ++i) {
    const bool a = r.contention[r.ranking[i]].has_value(), b = r.contention[r.ranking[i + 1]].has_value();
    EXPECT_TRUE(a || !b) << "a contention-simulated layout ranked after an analytical one";
    if (a == b) {
      EXPECT_LE(r.best_outcome(r.ranking[i]).step_s, r.best_outcome(r.ranking[i + 1]).step_s);
    }
  }
  // The three on the contention network are the three best on the analytical one.
  double worst_top = 0, best_rest = 1e300;
  for (std::size_t i = 0; i < r.ranking.size(); ++i) {
    const double t = r.analytical[r.ranking[i]]->step_s;
    if (i < 3) {
      worst_top = std::max(worst_top, t);
    } else {
      best_rest = std::min(best_rest, t);
    }
  }
  EXPECT_LE(worst_top, best_rest);
  // Every simulated outcome accounts for its whole step.
  for (std::size_t k : r.ranking) {
    const Outcome& o = r.best_outcome(k);
    double sum = 0;
    for (double v : o.seconds) sum += v;
    EXPECT_NEAR(sum, o.step_s, 1e-9 * o.step_s);
  }
  const PlanRequest request{base, base.topology.name, 5};
  // 7 B parameters with fp32 weights and Adam do not fit one 16 GB chip.
  EXPECT_NE(pure_data_parallel_verdict(request, r).find("every chip a full replica): never fits in memory"),
            std::string::npos)
      << pure_data_parallel_verdict(request, r);
  EXPECT_EQ(plan_table(request, r).rows(), r.candidates.size());
  // The layouts within the chip's comparison error of the winner are a tie, named as one.
  const double spread = output::prediction_band(base.chip).spread;
  const double winner = r.best_outcome(r.ranking.front()).step_s;
  const std::size_t tied = tied_with_winner(request, r);
  ASSERT_GE(tied, 1U);
  for (std::size_t i = 0; i < tied; ++i) {
    EXPECT_LE(r.best_outcome(r.ranking[i]).step_s, winner * (1 + spread));
  }
  if (tied < r.ranking.size()) {
    EXPECT_GT(r.best_outcome(r.ranking[tied]).step_s, winner * (1 + spread));
  }
  const std::string tie = tie_text(request, r);
  if (tied > 1) {
    EXPECT_EQ(tie.rfind("a tie: #1–#" + std::to_string(tied) + " lie within ", 0), 0U) << tie;
  } else {
    EXPECT_EQ(tie.rfind("no tie", 0), 0U) << tie;
  }
  EXPECT_NE(plan_text(request, r).find(tie), std::string::npos);
  // The header names the stack whose rules decided what can run, and the text says why the
  // rest cannot, by the keys the refusals name, the most frequent first.
  const std::string text = plan_text(request, r);
  EXPECT_NE(text.find(" · maxtext (training.stack"), std::string::npos) << text;
  std::map<std::string, std::size_t> keys;
  std::size_t cannot = 0;
  for (const Candidate& c : r.candidates) {
    if (c.verdict != Verdict::kCannotRun) continue;
    ++cannot;
    ++keys[c.reason.substr(0, c.reason.find(": "))];
  }
  ASSERT_GT(cannot, 0U);
  const auto most =
      std::max_element(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_NE(text.find("why " + std::to_string(cannot) + " cannot run, by the key each refusal names: " + most->first +
                      " " + std::to_string(most->second)),
            std::string::npos)
      << text;
}

TEST(Plan, EveryLayoutWithTensorParallelismAlsoRunsWithTheOtherTpOverlapWhereTheStackCan) {
  // MaxText (the v5e's stack) runs collective matmul by default and can switch it off: each
  // layout with tp > 1 is also a layout with TP blocking, searched like any other.
  runtime::Scenario base = small_base();
  const partition::Communicator alone(0, 1);
  const PlanOptions options = quiet(3);
  const PlanResult r = run_plan(base, options, alone);
  const std::set<std::string> layouts = descriptions(r);
  std::size_t twins = 0;
  for (const Candidate& c : r.candidates) {
    const Layout& l = c.layout;
    if (l.tp < 2 || l.tp_overlap || !l.tp_axes.empty()) continue;
    if (c.verdict != Verdict::kSimulate && c.verdict != Verdict::kPruned) continue;
    Layout blocking = l;
    blocking.tp_overlap = parallelism::TpOverlap::kNone;
    EXPECT_NE(describe(blocking).find("TP blocking"), std::string::npos);
    EXPECT_EQ(layouts.count(describe(blocking)), 1U) << describe(l);
    ++twins;
  }
  EXPECT_GE(twins, 10U);
  // Where the stack has no collective matmul (Megatron-LM of 2021), it is not tried.
  base.training.stack = workload::Stack::kMegatronLm;
  base.training.overlap.tp = parallelism::TpOverlap::kNone;
  const PlanResult none = run_plan(base, options, alone);
  for (const Candidate& c : none.candidates) EXPECT_FALSE(c.layout.tp_overlap.has_value()) << describe(c.layout);
}

/// The first layout of `r`'s ranking in a family of the verdict lines (the ranking's size if none).
std::size_t best_of(const PlanResult& r, bool (*family)(const Layout&)) {
  for (std::size_t i = 0; i < r.ranking.size(); ++i) {
    if (family(r.candidates[r.ranking[i]].layout)) return i;
  }
  return r.ranking.size();
}

/// The search against the exhaustive plan: the same exactly ranked layouts, tie and family
/// bests; every bound below its layout's simulated step; and it simulates fewer layouts.
void expect_search_matches_exhaustive(const runtime::Scenario& base) {
  const partition::Communicator alone(0, 1);
  PlanOptions options;
  options.contention_top = 3;
  options.exact_ranks = 5;
  options.progress = false;
  const PlanResult search = run_plan(base, options, alone);
  options.exhaustive = true;
  options.force = true;
  const PlanResult all = run_plan(base, options, alone);
  ASSERT_GE(all.ranking.size(), 5U);
  ASSERT_EQ(search.candidates.size(), all.candidates.size());
  for (std::size_t i = 0; i < 5; ++i) {
    const std::size_t a = search.ranking[i], b = all.ranking[i];
    EXPECT_EQ(describe(search.candidates[a].layout), describe(all.candidates[b].layout)) << "rank " << i + 1;
    EXPECT_EQ(search.best_outcome(a).step_s, all.best_outcome(b).step_s) << "rank " << i + 1;
  }
  const PlanRequest request{base, base.topology.name, 5};
  EXPECT_EQ(tied_with_winner(request, search), tied_with_winner(request, all));
  for (auto family : {+[](const Layout& l) { return pure_data(l) && l.zero == 0; },
                      +[](const Layout& l) { return pure_data(l) && l.zero > 0; }, +[](const Layout& l) { return pure_model(l); }}) {
    const std::size_t s = best_of(search, family), e = best_of(all, family);
    ASSERT_EQ(s == search.ranking.size(), e == all.ranking.size());
    if (e == all.ranking.size()) continue;
    EXPECT_EQ(describe(search.candidates[search.ranking[s]].layout), describe(all.candidates[all.ranking[e]].layout));
  }
  // The bound is a bound: no simulated step beats it (exhaustive: every bound refined).
  std::size_t simulated = 0, pruned = 0;
  for (std::size_t i = 0; i < all.candidates.size(); ++i) {
    if (!all.analytical[i]) continue;
    EXPECT_LE(all.candidates[i].lower_bound_s, all.analytical[i]->step_s * (1 + 1e-12)) << describe(all.candidates[i].layout);
    EXPECT_GT(all.candidates[i].lower_bound_s, 0.0);
  }
  for (std::size_t i = 0; i < search.candidates.size(); ++i) {
    simulated += search.analytical[i] ? 1 : 0;
    if (search.candidates[i].verdict != Verdict::kPruned) continue;
    ++pruned;
    EXPECT_NE(search.candidates[i].reason.find("no network runs its step in less than"), std::string::npos);
  }
  EXPECT_GT(pruned, 0U);
  EXPECT_EQ(simulated + pruned, all.ranking.size());
  // ... and a tight one where it matters: the winner's is within 15 % of its step.
  const std::size_t w = all.ranking.front();
  EXPECT_GT(all.candidates[w].lower_bound_s, 0.85 * all.analytical[w]->step_s) << describe(all.candidates[w].layout);
}

TEST(Plan, TheSearchRanksWhatTheExhaustivePlanRanksOnATpuSlice) { expect_search_matches_exhaustive(small_base()); }

TEST(Plan, AStoppedSearchRanksTheBestSoFarAndSaysWhatItDidNotReach) {
  const runtime::Scenario base = small_base();
  const partition::Communicator alone(0, 1);
  PlanOptions options;
  options.contention_top = 3;
  options.progress = false;
  const PlanResult whole = run_plan(base, options, alone);
  // --max-simulations 5: the first five of the search's order, then nothing more (no
  // contention-aware confirmation, no tie).
  options.max_simulations = 5;
  const PlanResult five = run_plan(base, options, alone);
  EXPECT_EQ(five.stopped, "--max-simulations 5");
  EXPECT_EQ(five.ranking.size(), 5U);
  EXPECT_EQ(five.exact_ranks, 0U);
  std::size_t unsearched = 0;
  for (std::size_t i = 0; i < five.candidates.size(); ++i) {
    EXPECT_FALSE(five.contention[i].has_value());
    const Candidate& c = five.candidates[i];
    // What it did simulate, it simulated as the whole search did.
    if (five.analytical[i]) {
      ASSERT_TRUE(whole.analytical[i].has_value()) << describe(c.layout);
      EXPECT_EQ(five.analytical[i]->step_s, whole.analytical[i]->step_s);
    }
    if (c.verdict != Verdict::kUnsearched) continue;
    ++unsearched;
    EXPECT_FALSE(five.analytical[i].has_value());
    EXPECT_EQ(c.reason.rfind("not simulated: the search stopped (--max-simulations 5)", 0), 0U) << c.reason;
  }
  EXPECT_GT(unsearched, 0U);
  const PlanRequest request{base, base.topology.name, 5};
  const std::string text = plan_text(request, five);
  EXPECT_NE(text.find("the search stopped early (--max-simulations 5)"), std::string::npos) << text;
  EXPECT_NE(text.find(std::to_string(unsearched) + " not searched"), std::string::npos) << text;
  EXPECT_NE(plan_json(request, five).find("\"stopped_early\": \"--max-simulations 5\""), std::string::npos);
  EXPECT_EQ(plan_json(request, whole).find("stopped_early"), std::string::npos);
  EXPECT_EQ(plan_text(request, whole).find("not searched"), std::string::npos);
  // A family the search had not reached says so, not that its variants cannot run.
  for (const std::string& line : {pure_data_parallel_verdict(request, five), pure_model_parallel_verdict(request, five)}) {
    EXPECT_EQ(line.find("(e.g. )"), std::string::npos) << line;
  }

  // Interrupted (Ctrl-C) before the second batch: the first batch's layouts are the answer.
  int asked = 0;
  options.max_simulations = 0;
  options.interrupted = [&asked] { return ++asked > 1; };
  const PlanResult stopped = run_plan(base, options, alone);
  EXPECT_EQ(stopped.stopped, "interrupted after 8 simulations");
  EXPECT_EQ(stopped.ranking.size(), 8U);
  // Interrupted before anything ran: nothing ranked, and the text says why.
  options.interrupted = [] { return true; };
  const PlanResult none = run_plan(base, options, alone);
  EXPECT_TRUE(none.ranking.empty());
  EXPECT_NE(plan_text(request, none).find("the search stopped before it simulated any layout"), std::string::npos)
      << plan_text(request, none);
}

TEST(Plan, TheSearchRanksWhatTheExhaustivePlanRanksOnAGpuCluster) {
  // Megatron-LM on two DGX A100 nodes: tensor parallelism blocks the compute stream.
  expect_search_matches_exhaustive(composed("gpt-1.7b", "a100-80gb", "a100-dgx-8x8", 64, {"topology.nodes=2"}));
}

TEST(Plan, TheSearchRanksWhatTheExhaustivePlanRanksUnderTorchtitan) {
  // FSDP2 under torch.distributed.pipelining gathers a ZeRO-3 stage once a step: its bound
  // counts those gathers, not one per microbatch, and stays below every simulated step.
  const runtime::Scenario base =
      composed("gpt-1.7b", "a100-80gb", "a100-dgx-8x8", 64, {"topology.nodes=2", "training.stack=torchtitan"});
  expect_search_matches_exhaustive(base);
  // There ZeRO-3 runs ZeRO-2's program (the pipeline keeps a stage gathered either way): not
  // simulated where its ZeRO-2 twin fits, and never ranked beside it.
  const partition::Communicator alone(0, 1);
  const PlanResult r = run_plan(base, quiet(0), alone);
  std::set<std::string> ranked;
  for (const std::size_t k : r.ranking) ranked.insert(describe(r.candidates[k].layout));
  std::size_t twins = 0;
  for (const Candidate& c : r.candidates) {
    if (c.layout.zero != 3 || c.layout.pp == 1) continue;
    Layout zero2 = c.layout;
    zero2.zero = 2;
    EXPECT_FALSE(ranked.count(describe(c.layout)) > 0 && ranked.count(describe(zero2)) > 0) << describe(c.layout);
    if (c.verdict == Verdict::kDominated && c.reason.find("runs ZeRO-2's program") != std::string::npos) ++twins;
  }
  EXPECT_GT(twins, 0U);
}

/// GPT 1.7B on two DGX A100 nodes under Megatron-Core, which can gather ZeRO-1's updated
/// weights in the next forward (--overlap-param-gather) and overlap TP with its matmuls.
runtime::Scenario megatron_core_base() {
  return composed("gpt-1.7b", "a100-80gb", "a100-dgx-8x8", 64, {"topology.nodes=2", "training.stack=megatron-core"});
}

TEST(Plan, ZeroOneAndTwoLayoutsAlsoGatherTheirWeightsInTheForwardWhereTheStackCan) {
  const partition::Communicator alone(0, 1);
  const PlanOptions options = quiet(0);
  const runtime::Scenario base = megatron_core_base();
  ASSERT_FALSE(base.training.overlap.param_gather);  // off by default, as in Megatron-Core
  const PlanResult r = run_plan(base, options, alone);
  const std::set<std::string> layouts = descriptions(r);
  std::size_t twins = 0;
  for (const Candidate& c : r.candidates) {
    const Layout& l = c.layout;
    if (l.param_gather || l.tp_overlap || !l.tp_axes.empty()) continue;
    if (c.verdict != Verdict::kSimulate && c.verdict != Verdict::kPruned) continue;
    Layout forward = l;
    forward.param_gather = true;
    EXPECT_EQ(layouts.count(describe(forward)), l.zero == 1 || l.zero == 2 ? 1U : 0U) << describe(l);
    // Both knobs together, as a tuned run sets them.
    Layout both = forward;
    both.tp_overlap = parallelism::TpOverlap::kCollectiveMatmul;
    EXPECT_EQ(layouts.count(describe(both)), l.tp > 1 && (l.zero == 1 || l.zero == 2) ? 1U : 0U) << describe(l);
    twins += layouts.count(describe(forward));
  }
  EXPECT_GE(twins, 10U);
  // The gather hidden in the forward is what the best ZeRO-1/2 layout runs: at the step's end
  // it is exposed whole.
  bool ranked = false;
  for (const std::size_t k : r.ranking) {
    const Layout& l = r.candidates[k].layout;
    if (l.zero != 1 && l.zero != 2) continue;
    ranked = true;
    EXPECT_TRUE(param_gather_of(base, l)) << describe(l);
    const std::vector<std::string> set = layout_settings(l);
    EXPECT_NE(std::find(set.begin(), set.end(), "training.overlap.param_gather=true"), set.end());
    break;
  }
  EXPECT_TRUE(ranked);
  // Stacks that gather at the step's end (Megatron-LM of 2021, DeepSpeed) are not given it.
  for (const workload::Stack stack : {workload::Stack::kMegatronLm, workload::Stack::kDeepSpeed}) {
    runtime::Scenario other = base;
    other.training.stack = stack;
    other.training.overlap.tp = parallelism::TpOverlap::kNone;
    for (const Candidate& c : run_plan(other, options, alone).candidates) {
      EXPECT_FALSE(c.layout.param_gather.has_value()) << describe(c.layout);
    }
  }
}

TEST(Plan, TheSearchRanksWhatTheExhaustivePlanRanksWithEveryOverlapKnobOfMegatronCore) {
  expect_search_matches_exhaustive(megatron_core_base());
}

TEST(LayoutSpace, TensorParallelismIsTriedOnTheOtherFastAxesOnceEach) {
  // GPT-3 175B on the 8x8x16 twisted v4 torus: podsim places tp 16 as x y[2] (an 8-ring and a
  // piece of another); a closed 16-ring along z is the placement to try, and x and y, alike in
  // every respect, are one placement, not two.
  const runtime::Scenario base = composed("gpt3-175b", "tpu-v4", "tpu-v4-8x8x16-twisted", 1536);
  const topology::Topology topo(base.topology);
  Layout l;
  l.dp = 64;
  l.tp = 16;
  l.pp = 1;
  EXPECT_EQ(tp_placement(topo, base, l), "x y[2]");
  std::set<std::string> seen;
  bool z = false;
  for (const Layout& v : other_tp_placements(topo, base, l)) {
    const std::string where = tp_placement(topo, base, v);
    EXPECT_NE(where, "x y[2]");
    EXPECT_NE(where, "y x[2]") << "x and y are alike: one of them is enough";
    EXPECT_TRUE(seen.insert(where).second) << where << " twice";
    EXPECT_NE(describe(v).find(" · tp on "), std::string::npos);
    z = z || where == "z";
  }
  EXPECT_TRUE(z) << "tp 16 on the z ring was not tried";
  l.tp = 1;
  l.dp = 1024;
  EXPECT_TRUE(other_tp_placements(topo, base, l).empty());
}

TEST(Outcome, DominantOverheadIgnoresUsefulComputeAndRoundTrips) {
  Outcome o;
  o.step_s = 10;
  o.seconds[static_cast<std::size_t>(runtime::TimeCategory::kForward)] = 6;
  o.seconds[static_cast<std::size_t>(runtime::TimeCategory::kBubble)] = 1;
  o.seconds[static_cast<std::size_t>(runtime::TimeCategory::kCommTp)] = 3;
  EXPECT_EQ(o.dominant_overhead(), "tensor-parallel comm 30.0 %");
  const Outcome back = Outcome::deserialize(o.serialize());
  EXPECT_EQ(back.seconds, o.seconds);
  EXPECT_EQ(back.step_s, 10);
  EXPECT_EQ(Outcome{}.dominant_overhead(), "none");
}

}  // namespace
}  // namespace podsim::plan
