#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace podsim::whatif {

/// One knob of a what-if study: a scenario key whose value is a number (with or without a
/// unit), and the two values it is tried at, one at a time, all else unchanged.
struct Knob {
  std::string key;   ///< scenario key path, e.g. "hardware.peak.bf16"
  std::string base;  ///< its value in the scenario, as written ("275 TFLOP/s")
  std::string low, high;          ///< the two variants, as scenario text ("247.5 TFLOP/s")
  double low_ratio = 1, high_ratio = 1;  ///< variant value / base value (0.9, 1.1; 0.5, 2)
  /// Why a variant the scenario would refuse (a value out of its key's range, e.g. an
  /// efficiency above 1) is not tried; its text is then empty.
  std::string low_refused, high_refused;
};

/// `text` (a number, optionally followed by a unit: "45 GB/s", "1 us", "0.66", "16 GiB")
/// with its number multiplied by `factor`, and the ratio of the new value to the old.
/// Sizes in bytes become a whole number of the largest binary unit within 0.01 % of the
/// exact product ("29491 MiB" for 32 GiB × 0.9; the ratio is the one tried); `whole` keeps the
/// number a whole number ≥ 1 (nothing when it would not be). Nothing for a text that does
/// not start with a positive finite number.
std::optional<std::pair<std::string, double>> scaled(const std::string& text, double factor, bool whole);

/// The keys `podsim whatif` varies by default, those of `scalars` (a resolved scenario's
/// scalar values by key path) that exist: the compute dtype's peak FLOP/s, HBM bandwidth and
/// capacity, host bandwidth, the links of the topology (torus ICI, a multislice's slice ICI
/// and DCN, a GPU cluster's intra-node and scale-out links: bandwidth and latency), the
/// matmul tile, the host input rate when one is set, and the micro batch.
std::vector<std::string> default_knob_keys(const std::map<std::string, std::string>& scalars);

/// Knobs a study varies at most: each costs two simulations (and two plans with --replan).
/// The default list has about 15; a scenario has some 50–150 numeric keys.
inline constexpr std::size_t kMaxKnobs = 200;

/// The largest --step: 1000 %, ×11 and ×1/11.
inline constexpr double kMaxStep = 10;

/// The factors a continuous knob takes at `step`: 1 − step and 1 + step below 100 % (0.1: 10 %
/// down and up); from 100 % on, where 1 − step would leave nothing, 1 / (1 + step) and
/// 1 + step (1: ×½ and ×2), the same change of the logarithm both ways.
std::pair<double, double> step_factors(double step);

/// Knobs for `keys` at `step_factors(step)`; whole-number knobs (the matmul tile,
/// the micro batch, any integer-valued key) are halved and doubled instead. Throws
/// InputError naming a key that is not in the scenario, whose value is not a number, or
/// that is named twice (its second row would compare the variant with itself), and when
/// there are more than kMaxKnobs keys.
std::vector<Knob> make_knobs(const std::map<std::string, std::string>& scalars, const std::vector<std::string>& keys,
                             double step);

}  // namespace podsim::whatif
