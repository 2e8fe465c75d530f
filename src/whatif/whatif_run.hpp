#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/overrides.hpp"
#include "output/prediction_band.hpp"
#include "partition/communicator.hpp"
#include "sweep/sweep_run.hpp"
#include "whatif/knobs.hpp"

namespace podsim::whatif {

/// What `podsim whatif` is asked.
struct WhatifRequest {
  std::filesystem::path scenario;
  std::vector<config::Override> sets;  ///< --set, applied to the base and every variant
  std::vector<std::string> knobs;      ///< keys to vary (empty: default_knob_keys)
  double step = 0.1;                   ///< relative change of continuous knobs
  /// Also re-plan the layout of the scenario and of every variant (`podsim plan`'s search on
  /// the analytical network): a faster ICI can make another layout the best.
  bool replan = false;
};

/// The best layout `podsim plan` finds for a scenario (its chips, model and batch).
struct Replanned {
  bool found = false;
  std::string layout;  ///< plan::describe, e.g. "dp 8 × tp 8 × pp 16 · 1F1B · …"
  double step_time_s = 0;
};

/// One variant: a knob at one of its two values.
struct Variant {
  std::string value;         ///< as scenario text
  double ratio = 1;          ///< value / base value
  bool tried = false;        ///< false: the knob has no such value (a micro batch of 1 halved)
  bool feasible = false;
  std::string reason;        ///< why it cannot run
  double step_time_s = 0;
  Replanned replanned;       ///< with WhatifRequest::replan
  /// Its busiest chip's time per category (runtime::category_column order; feasible variants).
  std::vector<double> categories_s;
};

/// Whether raising `key` gives the machine more of something (bandwidth, FLOP/s, an
/// efficiency, a host input rate) and lowering it less; latencies the other way round. Other
/// keys (capacities, the tile, the micro batch) have no such direction.
std::optional<bool> more_is_faster(const std::string& key);

/// A variant that gives the machine more and makes the step longer: what grew and what shrank.
struct SlowerWithMore {
  std::string knob, value;
  double step_change = 0;  ///< fraction of the base step
  /// The categories that changed, largest change first: (column, seconds). They add up to the
  /// step's change (the busiest chip's categories sum to its step).
  std::vector<std::pair<std::string, double>> changes;
};

/// A knob and what each of its variants did to the step.
struct KnobOutcome {
  Knob knob;
  Variant low, high;
  /// % step time per % knob: d ln(step) / d ln(value), from the two variants (central), or
  /// one and the base; NaN when neither runs.
  double elasticity = 0;
  /// The largest shortening of the step one of its variants gives, as a fraction of the
  /// base step (0 when neither shortens it), and which variant.
  double gain = 0;
  bool gain_from_high = true;
  /// The elasticity of the re-planned step (each variant with its own best layout); NaN
  /// without WhatifRequest::replan.
  double replanned_elasticity = 0;
};

/// The study, knobs ranked by |elasticity| (largest first; ties and NaN in key order).
struct WhatifResult {
  double base_step_time_s = 0;
  Replanned base_replanned;  ///< with WhatifRequest::replan
  bool replanned = false;
  std::vector<KnobOutcome> knobs;
  /// podsim's error on steps of the base scenario's chip (output/prediction_band.hpp).
  output::PredictionBand band;
  std::vector<double> base_categories_s;     ///< as Variant::categories_s
  std::vector<SlowerWithMore> slower_with_more;  ///< counter-intuitive variants, explained
};

/// Builds the study as a sweep (point 0 the scenario itself, then each knob's low and
/// high value alone) and runs it on the sweep machinery, spread over `comm`'s processes;
/// `output.file`, if given, gets the /sweep, /inputs and /whatif tables. Throws InputError
/// when the scenario itself cannot run. The result is complete on process 0.
WhatifResult run_whatif(const WhatifRequest& request, sweep::SweepOutput output, const partition::Communicator& comm);

/// The /whatif table: one row per variant tried, knobs in ranked order.
output::Table whatif_table(const WhatifResult& result);

}  // namespace podsim::whatif
