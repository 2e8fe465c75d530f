#include "whatif/whatif_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>

#include "config/document.hpp"
#include "config/scalar_values.hpp"
#include "config/scenario_config.hpp"
#include "partition/agreement.hpp"
#include "plan/plan_run.hpp"
#include "runtime/time_category.hpp"
#include "util/error.hpp"

namespace podsim::whatif {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string percent_text(double ratio) {
  const double p = std::round((ratio - 1) * 1000) / 10;  // one decimal: -10, +10, -50, +100
  std::string s = std::to_string(p);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return (p > 0 ? "+" : "") + s + " %";
}

/// The study as a sweep: one zip dimension over every knob; point 0 holds every knob at its
/// base value (the scenario itself), point 2i+1 knob i at its low value, 2i+2 at its high
/// value (a knob without a low value repeats the base there; it is not reported).
config::LoadedSweep as_sweep(const WhatifRequest& request, const std::vector<Knob>& knobs,
                             std::vector<config::InputRecord> inputs) {
  config::LoadedSweep s;
  s.file = config::display_name(request.scenario);
  s.base = request.scenario;
  s.dir = ".";
  s.fixed = request.sets;
  s.skip_infeasible = true;
  s.inputs = std::move(inputs);
  config::SweepDimension dim;
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    config::SweptKey k;
    k.key = knobs[i].key;
    for (std::size_t point = 0; point < 2 * knobs.size() + 1; ++point) {
      std::string value = knobs[i].base;
      std::string where = "whatif: " + knobs[i].key + " at its value in " + s.file;
      if (point == 2 * i + 1 && !knobs[i].low.empty()) {
        value = knobs[i].low;
        where = "whatif: " + knobs[i].key + " " + percent_text(knobs[i].low_ratio);
      } else if (point == 2 * i + 2 && !knobs[i].high.empty()) {
        value = knobs[i].high;
        where = "whatif: " + knobs[i].key + " " + percent_text(knobs[i].high_ratio);
      }
      k.values.push_back(value);
      k.where.push_back(where);
      k.line.push_back(0);
    }
    dim.keys.push_back(std::move(k));
  }
  s.dimensions.push_back(std::move(dim));
  // What the output file records as "the sweep": the study itself.
  std::string yaml = "whatif:\n  scenario: " + s.file + "\n  step: " + std::to_string(request.step) +
                     "\n  replan: " + (request.replan ? "true" : "false") + "\n  knobs:\n";
  for (const auto& k : knobs) yaml += "    - {key: " + k.key + ", low: \"" + k.low + "\", high: \"" + k.high + "\"}\n";
  yaml += "  set:\n";
  for (const auto& o : request.sets) yaml += "    - \"" + o.path + "=" + o.value + "\"\n";
  s.resolved_yaml = yaml;
  return s;
}

std::vector<double> categories_of(const sweep::PointResult& point) {
  std::vector<double> out;
  for (std::size_t c = 0; c < runtime::kCategories; ++c) {
    out.push_back(point.reals[sweep::metric_index(
        std::string(runtime::category_column(static_cast<runtime::TimeCategory>(c))))]);
  }
  return out;
}

/// `v` of `k` explained, when it gives the machine more and lengthens the step.
std::optional<SlowerWithMore> slower_with_more(const KnobOutcome& k, const Variant& v, double base_s,
                                               const std::vector<double>& base_categories) {
  const auto direction = more_is_faster(k.knob.key);
  if (!direction || !v.tried || !v.feasible || base_categories.empty()) return std::nullopt;
  const bool more = *direction ? v.ratio > 1 : v.ratio < 1;
  if (!more || !(v.step_time_s > base_s * (1 + 1e-9))) return std::nullopt;
  SlowerWithMore out{k.knob.key, v.value, v.step_time_s / base_s - 1, {}};
  for (std::size_t c = 0; c < base_categories.size(); ++c) {
    const double change = v.categories_s[c] - base_categories[c];
    if (std::fabs(change) >= 1e-9) {
      out.changes.emplace_back(std::string(runtime::category_column(static_cast<runtime::TimeCategory>(c))), change);
    }
  }
  std::stable_sort(out.changes.begin(), out.changes.end(),
                   [](const auto& a, const auto& b) { return std::fabs(a.second) > std::fabs(b.second); });
  return out;
}

Variant variant(const std::map<std::uint64_t, sweep::PointResult>& results, std::uint64_t point, const std::string& value,
                double ratio) {
  Variant v;
  v.value = value;
  v.ratio = ratio;
  v.tried = !value.empty();
  const auto it = results.find(point);
  if (!v.tried || it == results.end()) return v;
  v.feasible = it->second.feasible;
  v.reason = it->second.reason;
  v.step_time_s = v.feasible ? it->second.reals[sweep::metric_index("step_time_s")] : kNaN;
  if (v.feasible) v.categories_s = categories_of(it->second);
  return v;
}

/// d ln(step) / d ln(value) from the variants that ran: central with both, else one-sided.
double elasticity(bool lo, double lo_step, double lo_ratio, bool hi, double hi_step, double hi_ratio, double base) {
  if (lo && hi) return std::log(hi_step / lo_step) / std::log(hi_ratio / lo_ratio);
  if (hi) return std::log(hi_step / base) / std::log(hi_ratio);
  if (lo) return std::log(lo_step / base) / std::log(lo_ratio);
  return kNaN;
}

double elasticity(const KnobOutcome& k, double base) {
  return elasticity(k.low.tried && k.low.feasible, k.low.step_time_s, k.low.ratio, k.high.tried && k.high.feasible,
                    k.high.step_time_s, k.high.ratio, base);
}

double replanned_elasticity(const KnobOutcome& k, const Replanned& base) {
  if (!base.found) return kNaN;
  const auto& lo = k.low.replanned;
  const auto& hi = k.high.replanned;
  return elasticity(k.low.tried && lo.found, lo.step_time_s, k.low.ratio, k.high.tried && hi.found, hi.step_time_s,
                    k.high.ratio, base.step_time_s);
}

/// The planner's best layout for the scenario with `overrides` (on every process; the
/// result on process 0).
Replanned replan(const WhatifRequest& request, const std::vector<config::Override>& overrides,
                 const partition::Communicator& comm) {
  std::vector<config::Override> all = request.sets;
  all.insert(all.end(), overrides.begin(), overrides.end());
  const runtime::Scenario scenario = config::load_scenario(request.scenario, all, false).scenario;
  plan::PlanOptions options;
  options.contention_top = 0;  // analytical only: one plan per variant
  options.exact_ranks = 1;     // only the winner is wanted
  options.complete_tie = false;
  options.progress = false;
  const plan::PlanResult result = plan::run_plan(scenario, options, comm);
  Replanned r;
  if (!comm.root() || result.ranking.empty()) return r;
  const std::size_t best = result.ranking.front();
  r.found = true;
  r.layout = plan::describe(result.candidates[best].layout);
  r.step_time_s = result.best_outcome(best).step_s;
  return r;
}

/// The planner's best layouts: the scenario's, then each knob's low and high variant.
struct Replans {
  bool done = false;
  Replanned base;
  std::vector<std::pair<Replanned, Replanned>> knobs;
};

/// The knobs' outcomes from the points finished so far (and the re-plans), ranked.
WhatifResult assemble(const std::vector<Knob>& knobs, const std::map<std::uint64_t, sweep::PointResult>& results,
                      const Replans& replans) {
  WhatifResult r;
  r.replanned = replans.done;
  r.base_replanned = replans.base;
  const auto base = results.find(0);
  r.base_step_time_s = base != results.end() && base->second.feasible
                           ? base->second.reals[sweep::metric_index("step_time_s")]
                           : kNaN;
  if (base != results.end() && base->second.feasible) r.base_categories_s = categories_of(base->second);
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    KnobOutcome k;
    k.knob = knobs[i];
    k.low = variant(results, 2 * i + 1, knobs[i].low, knobs[i].low_ratio);
    k.high = variant(results, 2 * i + 2, knobs[i].high, knobs[i].high_ratio);
    k.elasticity = elasticity(k, r.base_step_time_s);
    if (replans.done) {
      k.low.replanned = replans.knobs[i].first;
      k.high.replanned = replans.knobs[i].second;
    }
    k.replanned_elasticity = replans.done ? replanned_elasticity(k, replans.base) : kNaN;
    for (const Variant* v : {&k.high, &k.low}) {
      if (!v->tried || !v->feasible) continue;
      const double gain = (r.base_step_time_s - v->step_time_s) / r.base_step_time_s;
      if (gain > k.gain) {
        k.gain = gain;
        k.gain_from_high = v == &k.high;
      }
    }
    for (const Variant* v : {&k.low, &k.high}) {
      if (auto s = slower_with_more(k, *v, r.base_step_time_s, r.base_categories_s)) r.slower_with_more.push_back(*s);
    }
    r.knobs.push_back(std::move(k));
  }
  std::stable_sort(r.knobs.begin(), r.knobs.end(), [](const KnobOutcome& a, const KnobOutcome& b) {
    const double x = std::isnan(a.elasticity) ? -1 : std::abs(a.elasticity);
    const double y = std::isnan(b.elasticity) ? -1 : std::abs(b.elasticity);
    return x > y;
  });
  return r;
}

}  // namespace

std::optional<bool> more_is_faster(const std::string& key) {
  auto ends = [&](std::string_view tail) {
    return key.size() >= tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends(".latency")) return false;
  if (ends(".bandwidth") || ends("samples_per_s") || key.find(".peak.") != std::string::npos ||
      key.find(".efficiency.") != std::string::npos) {
    return true;
  }
  return std::nullopt;
}

output::Table whatif_table(const WhatifResult& result) {
  output::Table t;
  t.name = "whatif";
  t.description = "podsim whatif: each knob varied alone, one row per variant; knobs ranked by |elasticity| "
                  "(% step time per % knob)";
  t.add_text("knob");
  t.add_text("base_value");
  t.add_text("value");
  t.add_real("change_percent", "%");
  t.add_int("feasible", "1");
  t.add_text("reason");
  t.add_real("step_time_s", "s");
  t.add_real("base_step_time_s", "s");
  t.add_real("step_change_percent", "%");
  t.add_real("elasticity", "1");
  t.add_text("replanned_layout");
  t.add_real("replanned_step_time_s", "s");
  t.add_real("replanned_elasticity", "1");
  for (const auto& k : result.knobs) {
    for (const Variant* v : {&k.low, &k.high}) {
      if (!v->tried) continue;
      t.texts("knob").push_back(k.knob.key);
      t.texts("base_value").push_back(k.knob.base);
      t.texts("value").push_back(v->value);
      t.reals("change_percent").push_back(100 * (v->ratio - 1));
      t.ints("feasible").push_back(v->feasible ? 1 : 0);
      t.texts("reason").push_back(v->reason);
      t.reals("step_time_s").push_back(v->feasible ? v->step_time_s : kNaN);
      t.reals("base_step_time_s").push_back(result.base_step_time_s);
      t.reals("step_change_percent")
          .push_back(v->feasible ? 100 * (v->step_time_s / result.base_step_time_s - 1) : kNaN);
      t.reals("elasticity").push_back(k.elasticity);
      t.texts("replanned_layout").push_back(v->replanned.layout);
      t.reals("replanned_step_time_s").push_back(v->replanned.found ? v->replanned.step_time_s : kNaN);
      t.reals("replanned_elasticity").push_back(result.replanned ? k.replanned_elasticity : kNaN);
    }
  }
  return t;
}

WhatifResult run_whatif(const WhatifRequest& request, sweep::SweepOutput output, const partition::Communicator& comm) {
  if (!(request.step > 0 && request.step <= kMaxStep)) {
    char got[32];
    std::snprintf(got, sizeof got, "%g", 100 * request.step);
    throw InputError("--step must be above 0 % and at most 1000 % (100 %: ×2 and ×½), got " + std::string(got) + " %");
  }
  std::vector<config::InputRecord> inputs;
  const config::LoadedScenario loaded = config::load_scenario(request.scenario, request.sets, true, inputs);
  const auto scalars = config::scalar_values(loaded.resolved_yaml());
  partition::require_agreement(comm, "their input files", config::content_digests(inputs));
  const auto keys = request.knobs.empty() ? default_knob_keys(scalars) : request.knobs;
  std::vector<Knob> knobs = make_knobs(scalars, keys, request.step);
  if (knobs.empty()) throw InputError(config::display_name(request.scenario) + ": no knob to vary");
  // A variant the scenario's reader refuses (out of its key's range) is reported, not tried:
  // one impossible value must not stop the study.
  for (auto& k : knobs) {
    for (auto [value, refused] : {std::pair{&k.low, &k.low_refused}, std::pair{&k.high, &k.high_refused}}) {
      if (value->empty()) continue;
      std::vector<config::Override> one = request.sets;
      one.push_back(config::Override{k.key, *value, "whatif: " + k.key + " = " + *value, "."});
      try {
        (void)config::load_scenario(request.scenario, one, false);
      } catch (const config::InfeasibleLayout&) {
      } catch (const InputError& e) {
        *refused = e.what();  // "whatif: KEY = VALUE: why"
        value->clear();
      }
    }
  }
  const config::LoadedSweep sweep = as_sweep(request, knobs, std::move(inputs));
  Replans replans;
  if (request.replan) {
    // One plan per variant, each spread over every process, in knob order.
    replans.done = true;
    replans.base = replan(request, {}, comm);
    for (const auto& k : knobs) {
      // A variant not tried (no such value, or refused) has no plan either.
      auto variant_plan = [&](const std::string& value) {
        return value.empty() ? Replanned{} : replan(request, {config::Override{k.key, value, "whatif", "."}}, comm);
      };
      Replanned low = variant_plan(k.low);
      replans.knobs.emplace_back(std::move(low), variant_plan(k.high));
    }
  }
  output.extra_tables = [&](const std::map<std::uint64_t, sweep::PointResult>& results) {
    return std::vector<output::Table>{whatif_table(assemble(knobs, results, replans))};
  };
  const sweep::SweepSummary summary = sweep::run_sweep(sweep, output, comm);
  if (!comm.root()) return {};
  const auto& first = summary.results.at(0);
  if (!first.feasible) throw InputError(config::display_name(request.scenario) + " cannot run: " + first.reason);
  WhatifResult result = assemble(knobs, summary.results, replans);
  result.band = output::prediction_band(loaded.scenario.chip);
  return result;
}

}  // namespace podsim::whatif
