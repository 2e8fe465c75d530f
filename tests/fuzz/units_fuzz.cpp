// libFuzzer target: the unit parsers of util/units.hpp (every unit string of every config
// goes through one of them). Each input is tried as a bandwidth, a duration, a size and a
// compute rate; what parses is checked against the documented ranges and rendered back with
// the formatters the reports use.
//
// Acceptable: podsim::InputError. Anything else — another exception, a sanitizer report
// (e.g. a float-to-integer conversion out of range), a value outside the documented range
// (trapped below), a timeout — is a finding. A bandwidth or rate that overflows to infinity
// (1e308 TB/s) is a known issue and not checked here.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/error.hpp"
#include "util/units.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace podsim;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const double bw = units::parse_bandwidth(text);
    check(bw > 0);  // "Must be > 0" (and never NaN)
    (void)units::format_bandwidth(bw);
  } catch (const InputError&) {
  }
  try {
    const SimTime ps = units::parse_duration(text);
    check(ps >= 0);
    (void)units::format_seconds(to_seconds(ps));
  } catch (const InputError&) {
  }
  try {
    const std::uint64_t bytes = units::parse_bytes(text);
    (void)units::format_bytes(static_cast<double>(bytes));
  } catch (const InputError&) {
  }
  try {
    const double rate = units::parse_flop_rate(text);
    check(rate > 0);
    (void)units::format_fixed(rate / 1e12, 1);
  } catch (const InputError&) {
  }
  return 0;
}
