#include "whatif/whatif_run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "config/document.hpp"
#include "config/scalar_values.hpp"
#include "config/scenario_config.hpp"
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
      } else if (point == 2 * i + 2) {
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
  std::string yaml = "whatif:\n  scenario: " + s.file + "\n  step: " + std::to_string(request.step) + "\n  knobs:\n";
  for (const auto& k : knobs) yaml += "    - {key: " + k.key + ", low: \"" + k.low + "\", high: \"" + k.high + "\"}\n";
  yaml += "  set:\n";
  for (const auto& o : request.sets) yaml += "    - \"" + o.path + "=" + o.value + "\"\n";
  s.resolved_yaml = yaml;
  return s;
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
  return v;
}

double elasticity(const KnobOutcome& k, double base) {
  const bool lo = k.low.tried && k.low.feasible;
  const bool hi = k.high.tried && k.high.feasible;
  if (lo && hi) return std::log(k.high.step_time_s / k.low.step_time_s) / std::log(k.high.ratio / k.low.ratio);
  if (hi) return std::log(k.high.step_time_s / base) / std::log(k.high.ratio);
  if (lo) return std::log(k.low.step_time_s / base) / std::log(k.low.ratio);
  return kNaN;
}

/// The knobs' outcomes from the points finished so far, ranked.
WhatifResult assemble(const std::vector<Knob>& knobs, const std::map<std::uint64_t, sweep::PointResult>& results) {
  WhatifResult r;
  const auto base = results.find(0);
  r.base_step_time_s = base != results.end() && base->second.feasible
                           ? base->second.reals[sweep::metric_index("step_time_s")]
                           : kNaN;
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    KnobOutcome k;
    k.knob = knobs[i];
    k.low = variant(results, 2 * i + 1, knobs[i].low, knobs[i].low_ratio);
    k.high = variant(results, 2 * i + 2, knobs[i].high, knobs[i].high_ratio);
    k.elasticity = elasticity(k, r.base_step_time_s);
    for (const Variant* v : {&k.high, &k.low}) {
      if (!v->tried || !v->feasible) continue;
      const double gain = (r.base_step_time_s - v->step_time_s) / r.base_step_time_s;
      if (gain > k.gain) {
        k.gain = gain;
        k.gain_from_high = v == &k.high;
      }
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
    }
  }
  return t;
}

WhatifResult run_whatif(const WhatifRequest& request, sweep::SweepOutput output, const partition::Communicator& comm) {
  if (!(request.step > 0 && request.step < 1)) {
    throw InputError("--step must be between 0 and 100 % (exclusive), got " + std::to_string(100 * request.step) + " %");
  }
  std::vector<config::InputRecord> inputs;
  const config::LoadedScenario base = config::load_scenario(request.scenario, request.sets, true, inputs);
  const auto scalars = config::scalar_values(base.resolved_yaml());
  const auto keys = request.knobs.empty() ? default_knob_keys(scalars) : request.knobs;
  const std::vector<Knob> knobs = make_knobs(scalars, keys, request.step);
  if (knobs.empty()) throw InputError(config::display_name(request.scenario) + ": no knob to vary");
  const config::LoadedSweep sweep = as_sweep(request, knobs, std::move(inputs));
  output.extra_tables = [&knobs](const std::map<std::uint64_t, sweep::PointResult>& results) {
    return std::vector<output::Table>{whatif_table(assemble(knobs, results))};
  };
  sweep::SweepSummary summary = sweep::run_sweep(sweep, output, comm);
  WhatifResult result;
  if (comm.root()) {
    const auto& first = summary.results.at(0);
    if (!first.feasible) throw InputError(config::display_name(request.scenario) + " cannot run: " + first.reason);
    result = assemble(knobs, summary.results);
  }
  result.scenario_name = base.name;
  result.sweep = std::move(summary);
  return result;
}

}  // namespace podsim::whatif
