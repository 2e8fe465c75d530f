#include "util/sim_time.hpp"

#include <cmath>
#include <string>

#include "util/error.hpp"
#include "util/units.hpp"

namespace podsim {

SimTime transfer_time_ps(double bytes, double bytes_per_s) {
  const double ps = std::ceil(bytes * 1e12 / bytes_per_s);
  if (!(ps <= static_cast<double>(kMaxStepPs))) {
    throw InputError("moving " + units::format_bytes(bytes) + " at " + units::format_bandwidth(bytes_per_s) +
                     " would take more than 2^60 ps (13 simulated days); is a size too large or a bandwidth too low?");
  }
  return static_cast<SimTime>(ps);
}

}  // namespace podsim
