#include "util/sim_time.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "util/error.hpp"
#include "util/units.hpp"

namespace podsim {

void throw_duration_out_of_range(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", seconds);
  throw SimulationError(std::string("a duration of ") + buf +
                        " s is beyond the 2^60 ps (13 simulated days) podsim's clock holds for one step");
}

void throw_transfer_too_long(double bytes, double bytes_per_s) {
  throw InputError("moving " + units::format_bytes(bytes) + " at " + units::format_bandwidth(bytes_per_s) +
                   " would take more than 2^60 ps (13 simulated days); is a size too large or a bandwidth too low?");
}

}  // namespace podsim
