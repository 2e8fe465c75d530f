#pragma once

#include "validation/cross_validation.hpp"

namespace podsim::cli {

/// `podsim validate --cross` as a table: per source and per family, rows, in-sample MAPE,
/// leave-one-source-out MAPE, within-source spread, and podsim against one constant MFU.
void print_cross_text(const validation::CrossReport& r);
/// The same as one JSON object.
void print_cross_json(const validation::CrossReport& r);

}  // namespace podsim::cli
