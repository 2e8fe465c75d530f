#include "plan/layout_space.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <cstdio>

#include "memory/memory_model.hpp"
#include "parallelism/program_builder.hpp"
#include "parallelism/work_bounds.hpp"
#include "parallelism/zero3_collectives.hpp"
#include "plan/remat_menu.hpp"
#include "runtime/step_work.hpp"
#include "topology/device_mesh.hpp"
#include "topology/topology.hpp"
#include "util/error.hpp"
#include "util/units.hpp"
#include "workload/stack_profile.hpp"

namespace podsim::plan {

namespace {

using parallelism::PipelineSchedule;
using parallelism::Recompute;

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

/// The schedules worth trying for `pp` stages: none without a pipeline.
std::vector<std::pair<PipelineSchedule, int>> schedules(int pp, const SpaceOptions& options) {
  if (pp == 1) return {{PipelineSchedule::kOneFOneB, 1}};
  if (options.fixed.schedule) return {*options.fixed.schedule};
  std::vector<std::pair<PipelineSchedule, int>> out;
  if (options.gpipe) out.emplace_back(PipelineSchedule::kGPipe, 1);
  if (options.plain_1f1b || options.virtual_stages.empty()) out.emplace_back(PipelineSchedule::kOneFOneB, 1);
  for (int v : options.virtual_stages) out.emplace_back(PipelineSchedule::kInterleaved, v);
  return out;
}

/// `all`, or only the fixed value.
template <typename T>
std::vector<T> only(const std::optional<T>& fixed, std::vector<T> all) {
  return fixed ? std::vector<T>{*fixed} : all;
}

/// The layout rules, or why not.
std::string layout_problem(const runtime::Scenario& s, std::uint32_t chips) {
  try {
    parallelism::check_layout(s.model, s.chip, s.parallel, s.training, chips);
  } catch (const parallelism::LayoutError& e) {
    return e.key() + ": " + e.what();
  }
  // A layout too big to simulate is left out with the estimate (the planner has no --force).
  // Layers have far fewer than 64 operations: most layouts are within budget at a glance.
  const double microbatches = double(s.training.global_batch) / (double(s.parallel.dp) * s.training.micro_batch);
  if (microbatches * s.model.layers * 64 > parallelism::kTaskBudget) {
    const auto work = parallelism::estimate_work(s.model, s.parallel, s.training);
    if (const auto why = parallelism::over_budget(work, s.training)) return "beyond the work budget: " + *why;
  }
  return {};
}

/// What simulating layouts of one dp × tp × pp costs, bounded from their mesh alone.
struct ShapeCost {
  std::string problem;  ///< "beyond the work budget: …" when even the analytical network is
  double analytical_s = 0;
  double contention_s = 0;
  bool contention_within_budget = true;
};

ShapeCost shape_cost(const topology::Topology& topo, const topology::DeviceMesh& mesh) {
  network::NetworkSpec net;
  const runtime::CommWork analytical = runtime::bound_comm_work(topo, mesh, net);
  net.fidelity = network::Fidelity::kContention;
  const runtime::CommWork contention = runtime::bound_comm_work(topo, mesh, net);
  ShapeCost cost{"", analytical.seconds, contention.seconds, contention.largest <= runtime::kScheduleBudget};
  if (analytical.largest > runtime::kScheduleBudget) {
    char count[64];
    std::snprintf(count, sizeof count, "%.3g transfers (podsim's budget is %.3g", analytical.largest,
                  runtime::kScheduleBudget);
    cost.problem = "beyond the work budget: its largest collective, " + analytical.largest_what + ", is " + count +
                   " in one collective)";
  }
  return cost;
}

}  // namespace

std::string schedule_text(const Layout& l) {
  parallelism::ParallelSpec p;
  p.pp = l.pp;
  p.schedule = l.schedule;
  std::string out = parallelism::schedule_label(p);
  if (l.virtual_stages > 1) out.append(" v").append(std::to_string(l.virtual_stages));
  if (l.microbatch_group > 0) out.append(", groups of ").append(std::to_string(l.microbatch_group));
  return out;
}

std::string describe(const Layout& l) {
  std::string out = "dp " + std::to_string(l.dp) + " × tp " + std::to_string(l.tp) + " × pp " + std::to_string(l.pp);
  out.append(" · ").append(schedule_text(l));
  out.append(" · micro batch ").append(std::to_string(l.micro_batch));
  if (l.zero > 0) out.append(" · ZeRO-").append(std::to_string(l.zero));
  if (l.zero > 0 && l.zero_group > 0 && l.zero_group < l.dp) out.append(" in groups of ").append(std::to_string(l.zero_group));
  if (l.sequence_parallel) out.append(" · SP");
  out.append(" · recompute ").append(parallelism::recompute_name(l.recompute));
  if (l.tp_overlap) {
    out.append(*l.tp_overlap == parallelism::TpOverlap::kCollectiveMatmul ? " · collective matmul" : " · TP blocking");
  }
  if (!l.tp_axes.empty()) out.append(" · tp on ").append(tp_axes_text(l));
  if (l.param_gather) {
    out.append(*l.param_gather ? " · weights gathered in the forward" : " · weights gathered at the step's end");
  }
  return out;
}

std::string tp_axes_text(const Layout& l, const char* separator) {
  std::string out;
  for (const auto& a : l.tp_axes) out.append(out.empty() ? "" : separator).append(a);
  return out;
}

std::string tp_placement(const topology::Topology& topo, const runtime::Scenario& base, const Layout& l) {
  if (l.tp < 2) return "";
  try {
    const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(apply(base, l).parallel));
    return mesh.describe_axis(mesh.axis_index("tp"));
  } catch (const InputError&) {
    return "";
  }
}

std::vector<Layout> other_tp_placements(const topology::Topology& topo, const runtime::Scenario& base,
                                        const Layout& l) {
  if (l.tp < 2 || base.parallel.mesh.count("tp") != 0) return {};
  std::vector<const topology::Axis*> fast;
  for (const auto& axis : topo.axes()) {
    if (!topology::is_slow_tier(axis.tier) && axis.size > 1) fast.push_back(&axis);
  }
  std::vector<std::vector<std::string>> tries;
  for (const topology::Axis* a : fast) {
    tries.push_back({a->name});
    for (const topology::Axis* b : fast) {
      if (b != a && a->size < l.tp) tries.push_back({a->name, b->name});
    }
  }
  // Placements that differ only by axes alike in every respect (x and y of a square torus) are one.
  const auto alike = [&](const std::string& where) {
    std::string out;
    std::size_t at = 0;
    while (at < where.size()) {
      std::size_t end = where.find(' ', at);
      if (end == std::string::npos) end = where.size();
      const std::string token = where.substr(at, end - at);  // "x" or "y[2]" or "y[4 every 2]"
      const std::string name = token.substr(0, token.find('['));
      std::string as = token;
      for (const auto& axis : topo.axes()) {
        if (axis.name != name) continue;
        as = std::string(1, '<');
        as.append(std::to_string(axis.size)).append(axis.wraparound ? "w" : "").append(axis.ring ? "r" : "");
        as.append(std::to_string(static_cast<int>(axis.tier))).append(">").append(token.substr(name.size()));
      }
      out += (out.empty() ? "" : " ") + as;
      at = end + 1;
    }
    return out;
  };
  const std::string own = tp_placement(topo, base, l);
  std::set<std::string> seen{own, alike(own)};
  std::vector<Layout> out;
  for (auto& axes : tries) {
    Layout v = l;
    v.tp_axes = std::move(axes);
    const std::string where = tp_placement(topo, base, v);
    if (where.empty() || seen.count(where) != 0 || !seen.insert(alike(where)).second) continue;
    seen.insert(where);
    out.push_back(std::move(v));
  }
  return out;
}

parallelism::TpOverlap tp_overlap_of(const runtime::Scenario& base, const Layout& l) {
  return l.tp_overlap.value_or(base.training.overlap.tp);
}

std::optional<Layout> other_tp_overlap(const runtime::Scenario& base, const Layout& l) {
  if (l.tp < 2 || !workload::stack_profile(base.training.stack).collective_matmul) return std::nullopt;
  Layout other = l;
  other.tp_overlap = base.training.overlap.tp == parallelism::TpOverlap::kCollectiveMatmul
                         ? parallelism::TpOverlap::kNone
                         : parallelism::TpOverlap::kCollectiveMatmul;
  return other;
}

bool param_gather_of(const runtime::Scenario& base, const Layout& l) {
  return l.param_gather.value_or(base.training.overlap.param_gather);
}

std::optional<Layout> other_param_gather(const runtime::Scenario& base, const Layout& l) {
  if ((l.zero != 1 && l.zero != 2) || !workload::stack_profile(base.training.stack).param_gather_overlap) {
    return std::nullopt;
  }
  Layout other = l;
  other.param_gather = !base.training.overlap.param_gather;
  return other;
}

int zero_state_group(const Layout& l) {
  parallelism::ParallelSpec p;
  p.dp = l.dp;
  p.zero = l.zero;
  p.zero_group = l.zero_group;
  return parallelism::zero_state_group(p);
}

runtime::Scenario apply(const runtime::Scenario& base, const Layout& l) {
  runtime::Scenario s = base;
  s.parallel.dp = l.dp;
  s.parallel.tp = l.tp;
  s.parallel.pp = l.pp;
  s.parallel.schedule = l.schedule;
  s.parallel.virtual_stages = l.virtual_stages;
  s.parallel.microbatch_group = l.microbatch_group;
  s.parallel.zero = l.zero;
  s.parallel.zero_group = l.zero_group;
  s.parallel.sequence_parallel = l.sequence_parallel;
  s.training.micro_batch = l.micro_batch;
  s.training.recompute = l.recompute;
  if (l.tp_overlap) s.training.overlap.tp = *l.tp_overlap;
  if (!l.tp_axes.empty()) s.parallel.mesh["tp"] = l.tp_axes;
  if (l.param_gather) s.training.overlap.param_gather = *l.param_gather;
  return s;
}

std::vector<std::string> layout_settings(const Layout& l) {
  const auto set = [](const char* key, const std::string& value) { return std::string(key) + "=" + value; };
  std::vector<std::string> out{set("parallelism.dp", std::to_string(l.dp)),
          set("parallelism.tp", std::to_string(l.tp)),
          set("parallelism.pp", std::to_string(l.pp)),
          set("parallelism.schedule", parallelism::schedule_name(l.schedule)),
          set("parallelism.virtual_stages", std::to_string(l.virtual_stages)),
          set("parallelism.zero", std::to_string(l.zero)),
          // 0 (one group of every replica) is written as dp: the same group, and a value the key takes.
          set("parallelism.zero_group", std::to_string(l.zero_group > 0 ? l.zero_group : l.dp)),
          set("parallelism.sequence_parallel", l.sequence_parallel ? "true" : "false"),
          set("training.micro_batch", std::to_string(l.micro_batch)),
          set("training.recompute", parallelism::recompute_name(l.recompute))};
  if (l.microbatch_group > 0) out.push_back(set("parallelism.microbatch_group", std::to_string(l.microbatch_group)));
  if (l.tp_overlap) out.push_back(set("training.overlap.tp", parallelism::tp_overlap_name(*l.tp_overlap)));
  if (!l.tp_axes.empty()) out.push_back(set("parallelism.mesh.tp", "[" + tp_axes_text(l, ", ") + "]"));
  if (l.param_gather) out.push_back(set("training.overlap.param_gather", *l.param_gather ? "true" : "false"));
  return out;
}

bool pure_data(const Layout& l) { return l.tp == 1 && l.pp == 1; }
bool pure_model(const Layout& l) { return l.dp == 1; }

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kCannotRun:
      return "cannot run";
    case Verdict::kDoesNotFit:
      return "does not fit";
    case Verdict::kDominated:
      return "dominated";
    case Verdict::kPruned:
      return "pruned";
    case Verdict::kUnsearched:
      return "not searched";
    default:
      return "simulate";
  }
}

std::optional<std::string> does_not_fit_with(std::vector<memory::MemoryBreakdown> stages, double headroom) {
  for (auto& m : stages) m.capacity *= 1.0 - headroom;
  auto why = memory::does_not_fit(stages);
  if (why && headroom > 0) *why += " (" + units::format_fixed(100 * (1 - headroom), 0) + " % of HBM, --memory-headroom)";
  return why;
}

/// Hybrid sharding's groups tried for a layout of `dp` replicas with ZeRO on: the one fixed,
/// or the base scenario's; else all of dp (0) and, where the slow tier joins several slices or
/// nodes whose count divides dp, one group per slice or node (FSDP inside it, replicas across:
/// PyTorch's HYBRID_SHARD, MaxText's ici_fsdp × dcn_data_parallelism).
std::vector<int> zero_groups(const runtime::Scenario& base, const FixedKnobs& fixed, int dp) {
  if (fixed.zero_group) return {*fixed.zero_group};
  if (base.parallel.zero_group > 0) return {base.parallel.zero_group};
  std::vector<int> out{0};
  const int domains = topology::fast_domains(base.topology);
  if (base.training.zero3_collectives == parallelism::Zero3Collectives::kFlat && domains > 1 && dp % domains == 0 &&
      dp / domains > 1) {
    out.push_back(dp / domains);
  }
  return out;
}

std::vector<Candidate> enumerate_layouts(const runtime::Scenario& base, const SpaceOptions& options) {
  const topology::Topology topo(base.topology);
  const std::uint32_t chips = topo.chips();
  std::vector<Candidate> out;
  const FixedKnobs& fixed = options.fixed;
  parallelism::PipelineOrders orders;  // the few pipelines the layouts' memory checks share
  for (int tp : divisors(static_cast<int>(chips))) {
    if (fixed.tp && tp != *fixed.tp) continue;
    for (int pp : divisors(static_cast<int>(chips) / tp)) {
      if ((fixed.pp && pp != *fixed.pp) || (fixed.dp && static_cast<int>(chips) / (tp * pp) != *fixed.dp)) continue;
      Layout shape;
      shape.tp = tp;
      shape.pp = pp;
      shape.dp = static_cast<int>(chips) / (tp * pp);
      // The factorization itself: one row if it cannot run whatever the other knobs.
      const runtime::Scenario plain = apply(base, shape);
      std::string problem = layout_problem(plain, chips);
      ShapeCost cost;
      if (problem.empty()) {
        try {
          const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(plain.parallel));
          cost = shape_cost(topo, mesh);
          problem = cost.problem;
        } catch (const InputError& e) {
          problem = std::string("cannot be placed on ") + base.topology.name + ": " + e.what();
        }
      }
      if (!problem.empty()) {
        out.push_back(Candidate{shape, Verdict::kCannotRun, problem, true});
        continue;
      }
      const std::vector<bool> sps = only(fixed.sequence_parallel, tp > 1 ? std::vector<bool>{false, true} : std::vector<bool>{false});
      for (int mb : only(fixed.micro_batch, options.micro_batches)) {
        if (base.training.global_batch % (shape.dp * mb) != 0) continue;
        // The menu depends on the slicing (tp, sequence parallelism, micro batch), not the schedule.
        std::array<RematMenu, 2> menus;
        for (bool sp : sps) {
          Layout sliced = shape;
          sliced.micro_batch = mb;
          sliced.sequence_parallel = sp;
          menus[sp ? 1 : 0] = remat_menu(apply(base, sliced), fixed.recompute);
        }
        // An interleaved step whose microbatches are no multiple of pp runs in Megatron-Core's
        // smallest microbatch group, where the stack has them; elsewhere it is refused.
        const int microbatches = base.training.global_batch / (shape.dp * mb);
        const int mb_group = microbatches % pp != 0 && workload::stack_profile(base.training.stack).microbatch_groups
                                 ? parallelism::smallest_microbatch_group(pp, microbatches)
                                 : 0;
        for (const auto& [schedule, v] : schedules(pp, options)) {
          for (bool sp : sps) {
            const RematMenu& menu = menus[sp ? 1 : 0];
            const std::vector<Recompute>& recomputes = menu.policies;
            // The remat policies (indices into the menu) that fit, per ZeRO stage and group.
            std::array<std::array<std::vector<std::size_t>, 2>, 4> fitting{};
            const std::vector<int> groups = zero_groups(base, fixed, shape.dp);
            for (int zero : only(fixed.zero, shape.dp > 1 ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{0})) {
              for (std::size_t g = 0; g < (zero >= 1 ? groups.size() : 1); ++g) {
                const int group = zero >= 1 ? groups[g] : 0;
                auto& fits = fitting[static_cast<std::size_t>(zero)][g];
                for (std::size_t r = 0; r < recomputes.size(); ++r) {
                  Candidate c;
                  c.layout = shape;
                  c.layout.micro_batch = mb;
                  c.layout.schedule = schedule;
                  c.layout.virtual_stages = v;
                  if (schedule == parallelism::PipelineSchedule::kInterleaved) c.layout.microbatch_group = mb_group;
                  c.layout.sequence_parallel = sp;
                  c.layout.zero = zero;
                  c.layout.zero_group = group;
                  c.layout.recompute = recomputes[r];
                  const runtime::Scenario s = apply(base, c.layout);
                  c.reason = layout_problem(s, chips);
                  c.build_s = runtime::repeated_step_seconds(s);
                  c.analytical_comm_s = cost.analytical_s;
                  c.contention_comm_s = cost.contention_s;
                  c.contention_within_budget = cost.contention_within_budget;
                  std::vector<memory::MemoryBreakdown> mem;
                  if (c.reason.empty()) {
                    mem = memory::stage_memory(s.model, s.chip, s.parallel, s.training, &orders);
                    for (const auto& m : mem) c.memory_bytes = std::max(c.memory_bytes, m.total);
                  }
                  if (!c.reason.empty()) {
                    c.verdict = Verdict::kCannotRun;
                  } else if (auto why = does_not_fit_with(mem, options.memory_headroom)) {
                    c.verdict = Verdict::kDoesNotFit;
                    c.reason = *why;
                  } else if (const auto q = std::find_if(fits.begin(), fits.end(),
                                                         [&](std::size_t f) { return menu.dominates(f, r); });
                             q != fits.end()) {
                    c.verdict = Verdict::kDominated;
                    c.reason = std::string("recomputes at least what recompute ") + parallelism::recompute_name(recomputes[*q]) +
                               " does, which fits";
                  } else {
                    fits.push_back(r);
                    const auto& zero1 = fitting[1][g];
                    // DeepSpeed's ZeRO-2, not FSDP's SHARD_GRAD_OP, whose program gathers in the
                    // forward and nothing after the optimizer.
                    if (zero == 2 && !workload::stack_profile(base.training.stack).zero2_shard_grad_op &&
                        std::find(zero1.begin(), zero1.end(), r) != zero1.end()) {
                      c.verdict = Verdict::kDominated;
                      c.reason = "runs ZeRO-1's program and reduces every microbatch's gradients, and ZeRO-1 fits";
                    }
                    // FSDP under torch.distributed.pipelining gathers a stage once a step
                    // whether or not it reshards after the forward: ZeRO-3 is ZeRO-2's program.
                    const auto& zero2 = fitting[2][g];
                    if (zero == 3 && parallelism::fsdp_gathers_once(s.parallel, s.training) &&
                        std::find(zero2.begin(), zero2.end(), r) != zero2.end()) {
                      c.verdict = Verdict::kDominated;
                      c.reason =
                          "runs ZeRO-2's program (a pipeline stage gathered once a step either way), and "
                          "ZeRO-2 fits";
                    }
                  }
                  out.push_back(std::move(c));
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace podsim::plan
