#pragma once

// How far podsim's step times are from measured ones on runs it was not fitted on: the
// leave-one-source-out error of `podsim validate --cross`, per chip family (docs/calibration.md,
// "Leave one source out"). Printed beside a step time ("± 5.6 %"); its spread (the error of
// comparing two runs) is what `plan` calls a tie.

#include <string>

#include "hardware/chip_spec.hpp"

namespace podsim::output {

struct PredictionBand {
  double mape = 0;  ///< mean absolute error of a step as a fraction (0.056: ± 5.6 %)
  /// Mean absolute error in *comparing* two runs of one stack and machine: the LOSO errors less
  /// their source's mean (the bias runs of one source share). Inside it a ranking is a tie.
  double spread = 0;
  std::string basis;  ///< what the figures are: "leave-one-source-out over 45 A100 rows of published.csv"
};

/// The band of `chip`: its family's leave-one-source-out MAPE where published.csv holds training
/// runs of it, else the error over every source (said in `basis`).
PredictionBand prediction_band(const hardware::ChipSpec& chip);

/// "± 5.6 % (leave-one-source-out over 45 A100 rows of published.csv)".
std::string band_text(const PredictionBand& band);

}  // namespace podsim::output
