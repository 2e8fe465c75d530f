#include "cli/whatif_command.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "output/json_writer.hpp"
#include "output/text_table.hpp"
#include "util/error.hpp"
#include "whatif/whatif_run.hpp"

namespace podsim::cli {

namespace {

/// "10%", "10 %", "0.1" → 0.1.
double parse_step(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  std::string rest(end);
  rest.erase(0, rest.find_first_not_of(' '));
  if (end == begin || !std::isfinite(v)) throw InputError("--step: expected a percentage like 10%, got \"" + text + "\"");
  if (rest == "%") return v / 100;
  if (rest.empty()) return v;
  throw InputError("--step: expected a percentage like 10%, got \"" + text + "\"");
}

std::string signed_percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", 100 * fraction);
  return buf;
}

std::string cell(const whatif::Variant& v, double base) {
  if (!v.tried) return "—";
  if (!v.feasible) return "cannot run";
  return signed_percent(v.step_time_s / base - 1);
}

std::string elasticity_text(double e) {
  if (std::isnan(e)) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.3f", std::abs(e) < 5e-4 ? 0.0 : e);
  return buf;
}

/// With --replan: each variant's best layout, where it differs from the scenario's best.
void print_replanned(const whatif::WhatifResult& r) {
  if (!r.base_replanned.found) {
    std::cout << "\nre-planned: no layout of these chips can run the scenario\n";
    return;
  }
  char line[512];
  std::snprintf(line, sizeof line, "\nre-planned (podsim plan's best layout of each variant, analytical network):\n"
                "  the scenario: %.4f s/step with %s\n", r.base_replanned.step_time_s, r.base_replanned.layout.c_str());
  std::cout << line;
  output::TextTable t({"knob", "value", "best layout", "step", "elasticity"});
  for (std::size_t c : {0, 1, 2}) t.set_align(c, output::Align::kLeft);
  for (const auto& k : r.knobs) {
    for (const whatif::Variant* v : {&k.low, &k.high}) {
      if (!v->tried) continue;
      const auto& p = v->replanned;
      const std::string layout = !p.found ? "none runs"
                                 : p.layout == r.base_replanned.layout ? "(the same)"
                                                                       : p.layout;
      t.add_row({k.knob.key, v->value, layout, p.found ? signed_percent(p.step_time_s / r.base_replanned.step_time_s - 1) : "—",
                 v == &k.low || !k.low.tried ? elasticity_text(k.replanned_elasticity) : ""});
    }
  }
  std::cout << t.render();
}

/// Variants that give the machine more yet lengthen the step, with the categories that moved:
/// the mechanism in podsim's own accounting (docs/runtime.md §4, "More bandwidth, a slower step").
void print_slower_with_more(const whatif::WhatifResult& r) {
  if (r.slower_with_more.empty()) return;
  std::cout << "\nmore, yet slower (what moved; docs/runtime.md §4, \"More bandwidth, a slower step\"):\n";
  for (const auto& s : r.slower_with_more) {
    char step[64];
    std::snprintf(step, sizeof step, "%+.1f ms (%+.3f %%)", 1e3 * s.step_change * r.base_step_time_s, 100 * s.step_change);
    std::cout << "  " << s.knob << " = " << s.value << ": step " << step << " —";
    std::size_t shown = 0;
    for (const auto& [column, change] : s.changes) {
      if (shown++ == 4) break;
      char buf[96];
      std::snprintf(buf, sizeof buf, " %s %+.1f ms", column.c_str(), 1e3 * change);
      std::cout << (shown > 1 ? "," : "") << buf;
    }
    std::cout << "\n";
  }
  std::cout << "  (a faster link lets communication draw more link and HBM bandwidth per second beside the compute\n"
               "  and collectives it overlaps; where that crosses what they leave free, they slow down)\n";
}

void print_text(const whatif::WhatifResult& r, const WhatifOptions& options, double step) {
  char change[64];
  if (step < 1) {
    std::snprintf(change, sizeof change, "±%g %%", 100 * step);
  } else {
    const double up = whatif::step_factors(step).second;  // the lower one is its inverse
    std::snprintf(change, sizeof change, "×%g and ÷%g", up, up);
  }
  char line[512];
  std::snprintf(line, sizeof line,
                "podsim whatif %s · each knob alone, %s (whole-number knobs halved and doubled)\nbase: %.4f s/step",
                options.file.c_str(), change, r.base_step_time_s);
  std::cout << line << " (podsim's error on runs like this: " << output::band_text(r.band) << ")\n\n";
  output::TextTable t({"knob", "base", "lower", "step", "higher", "step", "elasticity"});
  t.set_align(0, output::Align::kLeft);
  t.set_align(1, output::Align::kLeft);
  t.set_align(2, output::Align::kLeft);
  t.set_align(4, output::Align::kLeft);
  std::string notes;
  for (const auto& k : r.knobs) {
    t.add_row({k.knob.key, k.knob.base, k.low.tried ? k.low.value : "—", cell(k.low, r.base_step_time_s),
               k.high.tried ? k.high.value : "—", cell(k.high, r.base_step_time_s), elasticity_text(k.elasticity)});
    for (const std::string* refused : {&k.knob.low_refused, &k.knob.high_refused}) {
      if (!refused->empty()) notes += "  " + *refused + "\n";
    }
    for (const whatif::Variant* v : {&k.low, &k.high}) {
      if (v->tried && !v->feasible) notes += "  " + k.knob.key + " = " + v->value + ": " + v->reason + "\n";
    }
  }
  std::cout << t.render();
  std::cout << "(step: the change of the step time; elasticity: % step time per % knob, d ln step / d ln value)\n";
  if (r.replanned) print_replanned(r);
  if (!notes.empty()) std::cout << "variants that cannot run:\n" << notes;
  print_slower_with_more(r);
  // Which knob buys most: the largest shortening one step of one knob gives.
  std::vector<const whatif::KnobOutcome*> gains;
  for (const auto& k : r.knobs) {
    if (k.gain >= 5e-4) gains.push_back(&k);  // at least 0.05 %: not rounding noise
  }
  std::stable_sort(gains.begin(), gains.end(), [](const auto* a, const auto* b) { return a->gain > b->gain; });
  if (gains.empty()) {
    std::cout << "\nwhich knob buys most: none of these variants shortens the step\n";
    return;
  }
  std::cout << "\nwhich knob buys most (the step's shortening from one knob alone):\n";
  for (std::size_t i = 0; i < gains.size() && i < 5; ++i) {
    const auto& k = *gains[i];
    const auto& v = k.gain_from_high ? k.high : k.low;
    std::snprintf(line, sizeof line, "  %zu. %s %s → %s: %.4f s/step (%s)\n", i + 1, k.knob.key.c_str(),
                  k.knob.base.c_str(), v.value.c_str(), v.step_time_s, signed_percent(-k.gain).c_str());
    std::cout << line;
  }
}

void print_json(const whatif::WhatifResult& r, const WhatifOptions& options, double step) {
  output::JsonWriter j(2);
  j.begin_object();
  j.key("scenario");
  j.value(options.file);
  j.key("step");
  j.value(step);
  j.key("base_step_time_s");
  j.value(r.base_step_time_s);
  j.member("error_band", r.band.mape);
  j.member("error_band_basis", r.band.basis);
  if (r.replanned) {
    j.key("base_replanned_layout");
    j.value(r.base_replanned.layout);
    j.key("base_replanned_step_time_s");
    j.value(r.base_replanned.found ? r.base_replanned.step_time_s : std::nan(""));
  }
  j.key("slower_with_more");  // variants that give more and lengthen the step, with what moved
  j.begin_array();
  for (const auto& s : r.slower_with_more) {
    j.begin_object();
    j.member("knob", s.knob);
    j.member("value", s.value);
    j.member("step_change", s.step_change);
    j.key("changes_s");
    j.begin_object();
    for (const auto& [column, change] : s.changes) j.member(column, change);
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.key("knobs");
  j.begin_array();
  for (const auto& k : r.knobs) {
    j.begin_object();
    j.key("knob");
    j.value(k.knob.key);
    j.key("base_value");
    j.value(k.knob.base);
    j.key("elasticity");
    j.value(k.elasticity);
    j.key("gain");
    j.value(k.gain);
    if (r.replanned) {
      j.key("replanned_elasticity");
      j.value(k.replanned_elasticity);
    }
    j.key("refused");  // variants the scenario's reader refuses (out of range), not tried
    j.begin_array();
    for (const std::string* refused : {&k.knob.low_refused, &k.knob.high_refused}) {
      if (!refused->empty()) j.value(*refused);
    }
    j.end_array();
    j.key("variants");
    j.begin_array();
    for (const whatif::Variant* v : {&k.low, &k.high}) {
      if (!v->tried) continue;
      j.begin_object();
      j.key("value");
      j.value(v->value);
      j.key("change_percent");
      j.value(100 * (v->ratio - 1));
      j.key("feasible");
      j.value(v->feasible);
      j.key("reason");
      j.value(v->reason);
      j.key("step_time_s");
      j.value(v->feasible ? v->step_time_s : std::nan(""));
      if (r.replanned) {
        j.key("replanned_layout");
        j.value(v->replanned.layout);
        j.key("replanned_step_time_s");
        j.value(v->replanned.found ? v->replanned.step_time_s : std::nan(""));
      }
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  std::cout << j.str() << "\n";
}

}  // namespace

void run_whatif_command(const WhatifOptions& options, const Invocation& invocation) {
  whatif::WhatifRequest request;
  request.scenario = options.file;
  request.sets = config::parse_overrides(options.sets);
  request.knobs = options.knobs;
  request.step = parse_step(options.step);
  request.replan = options.replan;
  sweep::SweepOutput output{options.output_file, invocation.version, invocation.command_line, !options.quiet, 2, {}};
  const whatif::WhatifResult r = whatif::run_whatif(request, output, *invocation.world);
  if (!invocation.prints()) return;
  if (options.json) {
    print_json(r, options, request.step);
  } else {
    print_text(r, options, request.step);
  }
}

}  // namespace podsim::cli
