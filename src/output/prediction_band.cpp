#include "output/prediction_band.hpp"

#include <string_view>

#include "util/units.hpp"

namespace podsim::output {

namespace {

/// `podsim validate --cross` on configs/validation/published.csv, 2026-12-08 (docs/calibration.md):
/// each source's rows predicted with every fitted end-to-end efficiency refitted without them.
struct FamilyBand {
  std::string_view chip_prefix;  ///< hardware files of the family: a100-40gb, a100-80gb, ...
  std::string_view family;
  double mape;    ///< leave-one-source-out MAPE of the family's rows
  double spread;  ///< the same errors less their source's mean, over sources of 3 rows or more
  int rows;
};
constexpr FamilyBand kFamilies[] = {
    {"a100", "A100", 0.057, 0.034, 45},
    {"h100", "H100", 0.048, 0.048, 7},
    {"tpu-v5e", "TPU v5e", 0.072, 0.065, 21},
    {"tpu-v5p", "TPU v5p", 0.062, 0.058, 11},
};
constexpr FamilyBand kEverySource{"", "", 0.059, 0.048, 88};

}  // namespace

PredictionBand prediction_band(const hardware::ChipSpec& chip) {
  for (const FamilyBand& f : kFamilies) {
    if (std::string_view(chip.name).substr(0, f.chip_prefix.size()) == f.chip_prefix) {
      return {f.mape, f.spread,
              "leave-one-source-out over " + std::to_string(f.rows) + " " + std::string(f.family) +
                  " rows of published.csv"};
    }
  }
  return {kEverySource.mape, kEverySource.spread,
          "no published training runs of " + chip.name + "; leave-one-source-out over all " +
              std::to_string(kEverySource.rows) + " rows of published.csv"};
}

std::string band_text(const PredictionBand& band) {
  return "± " + units::format_fixed(100 * band.mape, 1) + " % (" + band.basis + ")";
}

}  // namespace podsim::output
