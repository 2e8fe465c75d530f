#include "plan/plan_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "memory/memory_model.hpp"
#include "output/json_writer.hpp"
#include "output/prediction_band.hpp"
#include "output/text_table.hpp"
#include "output/time_to_train_text.hpp"
#include "runtime/time_to_train.hpp"
#include "topology/topology.hpp"
#include "topology/topology_spec.hpp"
#include "util/units.hpp"
#include "workload/stack_profile.hpp"

namespace podsim::plan {

namespace {

std::string fixed(double v, int digits) { return units::format_fixed(v, digits); }
std::string gib(double bytes) { return fixed(bytes / double(1ull << 30), 1); }

/// Each candidate's position in the ranking (1-based; 0 when not ranked).
std::vector<std::size_t> ranks(const PlanResult& r) {
  std::vector<std::size_t> out(r.candidates.size(), 0);
  for (std::size_t i = 0; i < r.ranking.size(); ++i) out[r.ranking[i]] = i + 1;
  return out;
}

/// A family of layouts the verdict lines talk about.
struct Family {
  std::string name;
  std::function<bool(const Layout&)> shape;  ///< which dp × tp × pp
  std::function<bool(int zero)> zero;        ///< which ZeRO stages
  int thriftiest_zero = 0;                   ///< the ZeRO stage that needs least memory

  bool contains(const Candidate& c) const { return shape(c.layout) && (c.whole_shape || zero(c.layout.zero)); }
};

/// The memory of the thriftiest variant of `shape` (full recompute, micro batch 1, one
/// microbatch in flight, the family's thriftiest ZeRO stage), whatever the batch allows;
/// empty when it fits.
std::string thriftiest_memory(const PlanRequest& q, Layout shape, int zero) {
  shape.zero = shape.dp > 1 ? zero : 0;
  shape.recompute = parallelism::Recompute::kFull;
  shape.micro_batch = 1;
  shape.sequence_parallel = shape.tp > 1;
  shape.schedule = parallelism::PipelineSchedule::kOneFOneB;
  shape.virtual_stages = 1;
  runtime::Scenario s = apply(q.base, shape);
  s.training.global_batch = shape.dp * shape.pp;
  const auto why = memory::does_not_fit(memory::stage_memory(s.model, s.chip, s.parallel, s.training));
  return why ? *why : std::string();
}

/// The network a ranked candidate's figures come from.
const char* network_of(const PlanResult& r, std::size_t k) {
  return network::fidelity_name(r.contention[k] ? network::Fidelity::kContention : network::Fidelity::kAnalytical);
}

std::string verdict(const PlanRequest& q, const PlanResult& r, const Family& family) {
  const std::size_t winner = r.ranking.empty() ? r.candidates.size() : r.ranking.front();
  std::string line = family.name + ": ";
  for (std::size_t i = 0; i < r.ranking.size(); ++i) {
    const std::size_t c = r.ranking[i];
    if (!family.contains(r.candidates[c])) continue;
    const Outcome& o = r.best_outcome(c);
    if (c == winner) {
      line += "wins — " + describe(r.candidates[c].layout) + ", " + fixed(o.step_s, 3) + " s/step (" +
              network_of(r, c) + " network)";
    } else {
      // Compared on one network: the contention-aware one when both ran on it.
      const bool contention = r.contention[c] && r.contention[winner];
      const Outcome& mine = contention ? *r.contention[c] : *r.analytical[c];
      const Outcome& best = contention ? *r.contention[winner] : *r.analytical[winner];
      // Beyond the exact ranks the ranking holds only what the search simulated: no number.
      line += "best is " + (i < r.exact_ranks ? "#" + std::to_string(i + 1) + ", " : std::string()) +
              describe(r.candidates[c].layout) + ": " +
              fixed(mine.step_s, 3) + " s/step, " + fixed(mine.step_s / best.step_s, 2) + "× the winner's (both on the " +
              (contention ? "contention-aware" : "analytical") + " network)";
    }
    return line + "; its largest overhead is " + o.dominant_overhead();
  }
  // None ran: say why.
  std::size_t rows = 0, cannot = 0, too_big = 0, unreached = 0, shapes = 0;
  std::string cannot_example, memory_example;
  Layout shape;
  for (const auto& c : r.candidates) {
    if (!family.contains(c)) continue;
    ++rows;
    if (rows == 1 || c.layout.dp != shape.dp || c.layout.tp != shape.tp || c.layout.pp != shape.pp) ++shapes;
    shape = c.layout;
    if (c.verdict == Verdict::kCannotRun) {
      ++cannot;
      if (cannot_example.empty()) cannot_example = c.reason;
    } else if (c.verdict == Verdict::kDoesNotFit) {
      ++too_big;
      if (memory_example.empty()) memory_example = c.reason;
    } else if (c.verdict == Verdict::kUnsearched) {
      ++unreached;
    }
  }
  if (rows == 0) return line + "no such layout was enumerated";
  if (shapes == 1) {
    // One factorization: memory is the deeper reason, whatever else stands in the way.
    const std::string memory = thriftiest_memory(q, shape, family.thriftiest_zero);
    if (!memory.empty()) {
      line += "never fits in memory: even with full recompute and micro batch 1" +
              std::string(shape.dp > 1 && family.thriftiest_zero > 0
                              ? ", ZeRO-" + std::to_string(family.thriftiest_zero)
                              : "") +
              ", " + memory;
      return cannot_example.empty() ? line : line + "; besides, " + cannot_example;
    }
  }
  if (unreached > 0) {
    // A stopped search (PlanResult::stopped) had not come to the ones that can run and fit.
    return line + "none simulated: the search stopped (" + r.stopped + ") before it came to " +
           std::to_string(unreached) + " of its " + std::to_string(rows) + " variants";
  }
  if (too_big == rows) return line + "none of its " + std::to_string(rows) + " variants fits in memory, e.g. " + memory_example;
  if (cannot == rows) return line + "cannot run: " + cannot_example;
  return line + std::to_string(too_big) + " of its " + std::to_string(rows) + " variants do not fit in memory (e.g. " +
         memory_example + "), the other " + std::to_string(rows - too_big) + " cannot run (e.g. " + cannot_example + ")";
}

const char* on_off(bool b) { return b ? "on" : "off"; }

/// How tensor-parallel collectives meet their matmuls in `l`: "overlap" (collective matmul),
/// "blocking", or "-" without tensor parallelism.
const char* tp_comm_text(const runtime::Scenario& base, const Layout& l) {
  if (l.tp < 2) return "-";
  return tp_overlap_of(base, l) == parallelism::TpOverlap::kCollectiveMatmul ? "overlap" : "blocking";
}

/// Whether `l` shards its optimizer (ZeRO-1 or 2) and gathers the updated weights in the next
/// forward (the setting alone means nothing to other stages).
bool weights_in_forward(const runtime::Scenario& base, const Layout& l) {
  return (l.zero == 1 || l.zero == 2) && param_gather_of(base, l);
}

/// The ZeRO stage, and under hybrid sharding the group it shards over: "3", "3 in 256";
/// "1 fwd" where ZeRO-1/2's updated weights are gathered in the next forward.
std::string zero_text(const runtime::Scenario& base, const Layout& l) {
  const int group = zero_state_group(l);
  return std::to_string(l.zero) + (l.zero >= 1 && group < l.dp ? " in " + std::to_string(group) : "") +
         (weights_in_forward(base, l) ? " fwd" : "");
}


struct Counts {
  std::size_t by_verdict[kVerdicts] = {};
  std::size_t pruned_by_programs = 0;  ///< of the pruned, those ruled out by their built programs' bound
};

Counts count(const PlanResult& r) {
  Counts c;
  for (const auto& cand : r.candidates) {
    ++c.by_verdict[static_cast<int>(cand.verdict)];
    if (cand.verdict == Verdict::kPruned && cand.bound_by_programs) ++c.pruned_by_programs;
  }
  return c;
}

/// ", 8091 pruned (…: 8073 from …, 18 from …)" for the summary line; empty when none was.
std::string pruned_text(const Counts& c) {
  const std::size_t pruned = c.by_verdict[static_cast<std::size_t>(Verdict::kPruned)];
  if (pruned == 0) return "";
  std::string by_bound;
  if (c.pruned_by_programs > 0) {
    by_bound = ": " + std::to_string(pruned - c.pruned_by_programs) +
               " from their compute and the collectives it waits for, " + std::to_string(c.pruned_by_programs) +
               " from their built programs' streams and links";
  }
  return ", " + std::to_string(pruned) + " pruned (a lower bound of their step is slower than every step ranked here" +
         by_bound + ")";
}

/// "why 8296 cannot run: parallelism.tp 4420, parallelism.zero 2520 (e.g. …), …" — the keys
/// the refusals name, most frequent first (three at most), with one message of the first;
/// empty when every layout can run.
std::string cannot_run_text(const PlanResult& r) {
  std::map<std::string, std::pair<std::size_t, std::string>> by_key;
  std::size_t total = 0;
  for (const Candidate& c : r.candidates) {
    if (c.verdict != Verdict::kCannotRun) continue;
    ++total;
    const std::size_t colon = c.reason.find(": ");
    const std::string key = colon == std::string::npos ? c.reason : c.reason.substr(0, colon);
    auto& [n, example] = by_key[key];
    if (n++ == 0) {
      // Its first clause: the rest (what to do instead) is in the layout's own reason.
      example = colon == std::string::npos ? "" : c.reason.substr(colon + 2);
      example = example.substr(0, example.find("; "));
    }
  }
  if (total == 0) return "";
  std::vector<std::pair<std::size_t, std::string>> order;
  for (const auto& [key, entry] : by_key) order.emplace_back(entry.first, key);
  // Most frequent first; equal counts in key order (the map's), so the line is deterministic.
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out = "why " + std::to_string(total) + " cannot run, by the key each refusal names: ";
  for (std::size_t i = 0; i < order.size() && i < 3; ++i) {
    out += (i > 0 ? ", " : "") + order[i].second + " " + std::to_string(order[i].first);
    const std::string& example = by_key[order[i].second].second;
    if (i == 0 && !example.empty()) out += " (e.g. " + example + ")";
  }
  if (order.size() > 3)
    out += ", " + std::to_string(order.size() - 3) + (order.size() == 4 ? " other key" : " other keys");
  return out + "; -o plan.h5 keeps every layout's reason\n";
}

std::size_t contention_count(const PlanResult& r) {
  std::size_t n = 0;
  for (const auto& o : r.contention) n += o ? 1 : 0;
  return n;
}

}  // namespace

std::string pure_data_parallel_verdict(const PlanRequest& q, const PlanResult& r) {
  const auto chips = topology::chip_count(q.base.topology);
  return verdict(q, r, Family{"pure data parallelism (dp " + std::to_string(chips) + ", every chip a full replica)",
                              pure_data, [](int zero) { return zero == 0; }, 0}) +
         "\n" +
         verdict(q, r, Family{"fully sharded data parallelism (dp " + std::to_string(chips) + ", ZeRO-1/2/3)", pure_data,
                              [](int zero) { return zero > 0; }, 3});
}

std::string pure_model_parallel_verdict(const PlanRequest& q, const PlanResult& r) {
  return verdict(q, r, Family{"pure model parallelism (dp 1, tp × pp = every chip)",
                              pure_model, [](int) { return true; }, 0});
}

std::size_t tied_with_winner(const PlanRequest& q, const PlanResult& r) {
  if (r.ranking.empty()) return 0;
  const double band = output::prediction_band(q.base.chip).spread;
  const double winner = r.best_outcome(r.ranking.front()).step_s;
  std::size_t n = 0;
  while (n < r.ranking.size() && r.best_outcome(r.ranking[n]).step_s <= winner * (1 + band)) ++n;
  return n;
}

namespace {

/// The knobs whose values differ among the first `n` ranked layouts ("tp, pp, ZeRO, recompute").
std::string what_differs(const runtime::Scenario& base, const PlanResult& r, std::size_t n) {
  std::vector<std::pair<const char*, std::set<std::string>>> knobs{
      {"dp", {}},          {"tp", {}}, {"pp", {}},        {"schedule", {}}, {"micro batch", {}},
      {"ZeRO", {}},        {"SP", {}}, {"recompute", {}}, {"TP comm", {}},   {"tp placement", {}}};
  const topology::Topology topo(base.topology);
  for (std::size_t i = 0; i < n; ++i) {
    const Layout& l = r.candidates[r.ranking[i]].layout;
    const std::string values[] = {std::to_string(l.dp), std::to_string(l.tp), std::to_string(l.pp), schedule_text(l),
                                  std::to_string(l.micro_batch), zero_text(base, l), on_off(l.sequence_parallel),
                                  parallelism::recompute_name(l.recompute), tp_comm_text(base, l),
                                  tp_placement(topo, base, l)};
    for (std::size_t k = 0; k < knobs.size(); ++k) knobs[k].second.insert(values[k]);
  }
  std::string out;
  for (const auto& [name, seen] : knobs) {
    if (seen.size() > 1) out += (out.empty() ? "" : ", ") + std::string(name);
  }
  return out;
}

}  // namespace

std::string tie_text(const PlanRequest& q, const PlanResult& r) {
  const std::size_t n = tied_with_winner(q, r);
  const output::PredictionBand band = output::prediction_band(q.base.chip);
  const std::string percent = fixed(100 * band.spread, 1) + " %";
  const std::string why = " — podsim's error in comparing two runs of one stack and machine (" + band.basis +
                          ", less each source's mean)";
  if (n < 2) return "no tie: #2 is more than " + percent + " slower than the winner" + why;
  return "a tie: #1–#" + std::to_string(n) + " lie within " + percent + " of the winner's step" + why +
         " — so their order is not a prediction; they differ in " + what_differs(q.base, r, n);
}

std::string plan_text(const PlanRequest& q, const PlanResult& r) {
  const auto& b = q.base;
  const Counts c = count(r);
  std::string out = "podsim plan · " + b.model.name + " on " + std::to_string(topology::chip_count(b.topology)) +
                    " × " + b.chip.name + " (" + q.topology_name + ") · batch " +
                    std::to_string(b.training.global_batch) + " × " + std::to_string(b.training.seq_len) +
                    " tokens · " + workload::stack_name(b.training.stack) +
                    " (training.stack: what runs and what cannot)\n";
  out += std::to_string(r.candidates.size()) + " layouts: " + std::to_string(c.by_verdict[0]) +
         " simulated on the analytical network, " +
         (contention_count(r) > 0 ? "the best " + std::to_string(contention_count(r)) : std::string("none")) +
         " again on the contention-aware network; " + std::to_string(c.by_verdict[2]) + " do not fit in memory, " +
         std::to_string(c.by_verdict[1]) + " cannot run, " + std::to_string(c.by_verdict[3]) +
         " dominated (more recompute, or a ZeRO stage running the program of one that fits)" + pruned_text(c) +
         (c.by_verdict[5] > 0 ? ", " + std::to_string(c.by_verdict[5]) + " not searched" : std::string()) + "\n";
  out += cannot_run_text(r);
  if (!r.stopped.empty()) {
    out += "the search stopped early (" + r.stopped + "): the best so far, ranked on the analytical network only; "
           "layouts it had not reached may be faster, so neither the ranking nor the tie below is complete\n";
  }
  out += "\n";
  if (r.ranking.empty() && !r.stopped.empty()) {
    out += "the search stopped before it simulated any layout: nothing to rank yet\n";
  } else if (r.ranking.empty()) {
    out += "no layout can run on these chips: see the reasons below (and every row with -o plan.h5)\n";
  } else {
    output::TextTable t({"#", "contention s", "analytical s", "MFU %", "GiB/chip", "dp", "tp", "pp", "schedule", "mb",
                         "ZeRO", "SP", "recompute", "TP comm", "tp on", "largest overhead"});
    for (std::size_t col : {8U, 11U, 12U, 13U, 14U, 15U}) t.set_align(col, output::Align::kLeft);
    const topology::Topology topo(b.topology);
    bool hybrid = false;
    bool gathered_in_forward = false;
    for (std::size_t i = 0; i < r.ranking.size() && i < q.top; ++i) {
      const std::size_t k = r.ranking[i];
      const Layout& l = r.candidates[k].layout;
      const Outcome& o = r.best_outcome(k);
      t.add_row({std::to_string(i + 1), r.contention[k] ? fixed(r.contention[k]->step_s, 3) : "-",
                 fixed(r.analytical[k]->step_s, 3),
                 fixed(100 * o.mfu, 1), gib(o.memory_bytes) + "/" + gib(o.capacity_bytes), std::to_string(l.dp),
                 std::to_string(l.tp), std::to_string(l.pp), schedule_text(l), std::to_string(l.micro_batch),
                 zero_text(b, l), on_off(l.sequence_parallel), parallelism::recompute_name(l.recompute),
                 tp_comm_text(b, l), l.tp > 1 ? tp_placement(topo, b, l) : "-", o.dominant_overhead()});
      hybrid = hybrid || (l.zero >= 1 && zero_state_group(l) < l.dp);
      gathered_in_forward = gathered_in_forward || weights_in_forward(b, l);
    }
    out += t.render();
    out += "(step time per training step; ranked by the contention-aware network where simulated on it, then by the "
           "analytical one; MFU, memory and overhead from the same simulation)\n";
    out += tie_text(q, r) + "\n";
    if (gathered_in_forward) {
      out += "(ZeRO \"1 fwd\", \"2 fwd\": the updated weights gathered layer by layer during the next step's forward, "
             "training.overlap.param_gather: Megatron-Core's --overlap-param-gather)\n";
    }
    if (hybrid) {
      out += "(ZeRO \"3 in 256\": hybrid sharding, the ZeRO state sharded over groups of 256 replicas inside a slice or "
             "node, the groups' copies all-reducing across them)\n";
    }
    const auto chips = static_cast<unsigned>(topology::chip_count(b.topology));
    if (const auto ttt = runtime::time_to_train(b.training, r.best_outcome(r.ranking.front()).tokens_per_s, chips)) {
      out += "#1: " + output::time_to_train_text(*ttt, chips) + "\n";
    }
  }
  out += "\n" + pure_data_parallel_verdict(q, r) + "\n" + pure_model_parallel_verdict(q, r) + "\n";
  return out;
}

std::string plan_json(const PlanRequest& q, const PlanResult& r) {
  const auto& b = q.base;
  const Counts c = count(r);
  output::JsonWriter j(2);
  j.begin_object();
  j.member("model", b.model.name);
  j.member("hardware", b.chip.name);
  j.member("stack", workload::stack_name(b.training.stack));
  j.member("topology", q.topology_name);
  j.member("chips", topology::chip_count(b.topology));
  j.member("global_batch", b.training.global_batch);
  j.member("seq_len", b.training.seq_len);
  // The ranked layouts within podsim's error band of the winner (tie_text).
  const output::PredictionBand band = output::prediction_band(b.chip);
  j.key("tie");
  j.begin_object();
  j.member("layouts", tied_with_winner(q, r));
  j.member("error_band", band.spread);
  j.member("basis", band.basis);
  j.end_object();
  j.key("layouts");
  j.begin_object();
  j.member("enumerated", r.candidates.size());
  j.member("simulated", c.by_verdict[0]);
  j.member("simulated_with_contention", contention_count(r));
  j.member("cannot_run", c.by_verdict[1]);
  j.member("do_not_fit", c.by_verdict[2]);
  j.member("dominated", c.by_verdict[3]);
  j.member("pruned", c.by_verdict[4]);
  j.member("pruned_by_programs", c.pruned_by_programs);
  if (c.by_verdict[5] > 0) j.member("not_searched", c.by_verdict[5]);
  j.end_object();
  if (!r.stopped.empty()) j.member("stopped_early", r.stopped);
  j.key("ranked");
  j.begin_array();
  const topology::Topology topo(b.topology);
  const auto chips = static_cast<unsigned>(topology::chip_count(b.topology));
  for (std::size_t i = 0; i < r.ranking.size() && i < q.top; ++i) {
    const std::size_t k = r.ranking[i];
    const Layout& l = r.candidates[k].layout;
    const Outcome& o = r.best_outcome(k);
    j.begin_object();
    j.member("rank", i + 1);
    j.member("layout", describe(l));
    j.member("dp", l.dp);
    j.member("tp", l.tp);
    j.member("pp", l.pp);
    j.member("schedule", parallelism::schedule_name(l.schedule));
    j.member("virtual_stages", l.virtual_stages);
    j.member("microbatch_group", l.microbatch_group);
    j.member("micro_batch", l.micro_batch);
    j.member("zero", l.zero);
    j.member("zero_group", zero_state_group(l));
    j.member("sequence_parallel", l.sequence_parallel);
    j.member("recompute", parallelism::recompute_name(l.recompute));
    j.member("tp_overlap", parallelism::tp_overlap_name(tp_overlap_of(q.base, l)));
    j.member("tp_axes", tp_axes_text(l));
    j.member("tp_placement", tp_placement(topo, q.base, l));
    j.member("param_gather", param_gather_of(q.base, l));
    j.member("network", network_of(r, k));
    j.member("step_time_s", o.step_s);
    j.member("analytical_step_time_s", r.analytical[k]->step_s);
    j.member("tokens_per_s", o.tokens_per_s);
    if (const auto t = runtime::time_to_train(q.base.training, o.tokens_per_s, chips)) {
      j.member("time_to_train_s", t->total_s);
    }
    j.member("mfu", o.mfu);
    j.member("memory_bytes", o.memory_bytes);
    j.member("hbm_capacity_bytes", o.capacity_bytes);
    j.member("largest_overhead", o.dominant_overhead());
    j.end_object();
  }
  j.end_array();
  j.member("pure_data_parallelism", pure_data_parallel_verdict(q, r));
  j.member("pure_model_parallelism", pure_model_parallel_verdict(q, r));
  j.end_object();
  return j.str();
}

output::Table plan_verdicts_table(const PlanRequest& q, const PlanResult& r) {
  output::Table t;
  t.name = "plan_verdicts";
  t.description = "the plan's answers to data or model parallelism, as its text prints them";
  t.add_text("family");
  t.add_text("verdict");
  t.texts("family").push_back("pure data parallelism");
  t.texts("verdict").push_back(pure_data_parallel_verdict(q, r));
  t.texts("family").push_back("pure model parallelism");
  t.texts("verdict").push_back(pure_model_parallel_verdict(q, r));
  t.texts("family").push_back("tie");
  t.texts("verdict").push_back(r.ranking.empty() ? "" : tie_text(q, r));
  return t;
}

output::Table plan_table(const PlanRequest& q, const PlanResult& r) {
  output::Table t;
  t.name = "plan";
  t.description = "podsim plan: every enumerated layout; rank 0 = not simulated (see verdict and reason)";
  for (const char* name : {"index", "rank", "dp", "tp", "pp"}) t.add_int(name, "1");
  t.add_text("schedule");
  for (const char* name : {"virtual_stages", "microbatch_group", "micro_batch", "zero", "zero_group", "sequence_parallel"}) {
    t.add_int(name, "1");
  }
  t.add_text("recompute");
  t.add_text("tp_overlap");
  t.add_text("tp_axes");
  t.add_int("param_gather", "1");
  t.add_text("verdict");
  t.add_text("reason");
  t.add_text("network");
  t.add_real("step_time_s", "s");
  t.add_real("analytical_step_time_s", "s");
  t.add_real("contention_step_time_s", "s");
  t.add_real("lower_bound_s", "s");
  t.add_real("tokens_per_s", "1/s");
  t.add_real("mfu", "1");
  t.add_real("memory_peak_bytes", "B");
  t.add_real("hbm_capacity_bytes", "B");
  for (std::size_t c = 0; c < runtime::kCategories; ++c) {
    t.add_real(std::string(runtime::category_column(static_cast<runtime::TimeCategory>(c))), "s");
  }
  t.add_text("largest_overhead");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double capacity = q.base.chip.hbm_capacity_bytes - q.base.chip.hbm_reserved_bytes;
  const std::vector<std::size_t> rank = ranks(r);
  for (std::size_t k = 0; k < r.candidates.size(); ++k) {
    const Candidate& c = r.candidates[k];
    const Layout& l = c.layout;
    t.ints("index").push_back(static_cast<std::int64_t>(k));
    t.ints("rank").push_back(static_cast<std::int64_t>(rank[k]));
    t.ints("dp").push_back(l.dp);
    t.ints("tp").push_back(l.tp);
    t.ints("pp").push_back(l.pp);
    t.texts("schedule").push_back(parallelism::schedule_name(l.schedule));
    t.ints("virtual_stages").push_back(l.virtual_stages);
    t.ints("microbatch_group").push_back(l.microbatch_group);
    t.ints("micro_batch").push_back(l.micro_batch);
    t.ints("zero").push_back(l.zero);
    t.ints("zero_group").push_back(zero_state_group(l));
    t.ints("sequence_parallel").push_back(l.sequence_parallel ? 1 : 0);
    t.texts("recompute").push_back(parallelism::recompute_name(l.recompute));
    t.texts("tp_overlap").push_back(parallelism::tp_overlap_name(tp_overlap_of(q.base, l)));
    t.texts("tp_axes").push_back(tp_axes_text(l));
    t.ints("param_gather").push_back(param_gather_of(q.base, l) ? 1 : 0);
    t.texts("verdict").push_back(verdict_name(c.verdict));
    t.texts("reason").push_back(c.reason);
    const bool ran = r.analytical[k].has_value();
    t.texts("network").push_back(ran ? network_of(r, k) : "");
    const Outcome* o = ran ? &r.best_outcome(k) : nullptr;
    t.reals("step_time_s").push_back(o ? o->step_s : nan);
    t.reals("analytical_step_time_s").push_back(ran ? r.analytical[k]->step_s : nan);
    t.reals("contention_step_time_s").push_back(r.contention[k] ? r.contention[k]->step_s : nan);
    const bool bounded =
        c.verdict == Verdict::kSimulate || c.verdict == Verdict::kPruned || c.verdict == Verdict::kUnsearched;
    t.reals("lower_bound_s").push_back(bounded ? c.lower_bound_s : nan);
    t.reals("tokens_per_s").push_back(o ? o->tokens_per_s : nan);
    t.reals("mfu").push_back(o ? o->mfu : nan);
    // A layout that does not fit (or was not simulated) says what it would need.
    const bool sized = c.memory_bytes > 0;
    t.reals("memory_peak_bytes").push_back(o ? o->memory_bytes : sized ? c.memory_bytes : nan);
    t.reals("hbm_capacity_bytes").push_back(o ? o->capacity_bytes : sized ? capacity : nan);
    for (std::size_t cat = 0; cat < runtime::kCategories; ++cat) {
      t.reals(std::string(runtime::category_column(static_cast<runtime::TimeCategory>(cat))))
          .push_back(o ? o->seconds[cat] : nan);
    }
    t.texts("largest_overhead").push_back(o ? o->dominant_overhead() : "");
  }
  return t;
}

}  // namespace podsim::plan
