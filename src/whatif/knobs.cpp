#include "whatif/knobs.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "util/error.hpp"
#include "util/suggest.hpp"
#include "util/units.hpp"

namespace podsim::whatif {

namespace {

/// A whole-number value (a micro batch, a tile, a prefetch depth) steps by doubling: a
/// fraction of it is not a valid scenario.
bool doubles(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// The size in bytes `text` names, when it names one ("16 GiB"; not "45 GB/s", not "4").
std::optional<double> size_in_bytes(const std::string& text) {
  if (text.find_first_of("Bb") == std::string::npos || text.find('/') != std::string::npos) return std::nullopt;
  try {
    return static_cast<double>(units::parse_bytes(text));
  } catch (const InputError&) {
    return std::nullopt;
  }
}

struct SizeUnit {
  const char* name;
  double bytes;
};

/// `bytes` as a whole number of the largest binary unit that holds it within 0.01 % (a size
/// key takes whole bytes: 28.8 GiB is none, 29491 MiB is), else as whole bytes.
std::pair<unsigned long long, SizeUnit> readable_size(double bytes) {
  static constexpr SizeUnit kUnits[] = {{"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0},
                                        {"KiB", 1024.0}};
  for (const SizeUnit& u : kUnits) {
    const double count = std::round(bytes / u.bytes);
    if (count >= 1 && std::fabs(count * u.bytes - bytes) <= 1e-4 * bytes) {
      return {static_cast<unsigned long long>(count), u};
    }
  }
  return {static_cast<unsigned long long>(std::round(bytes)), SizeUnit{"B", 1.0}};
}

}  // namespace

std::optional<std::pair<std::string, double>> scaled(const std::string& text, double factor, bool whole) {
  if (!(factor > 0) || !std::isfinite(factor)) return std::nullopt;
  if (const auto bytes = size_in_bytes(text); bytes && *bytes > 0) {
    const double exact = *bytes * factor;
    if (!(exact >= 1) || exact >= 1.8e19) return std::nullopt;
    const auto [count, unit] = readable_size(exact);
    return std::pair{std::to_string(count) + " " + unit.name, static_cast<double>(count) * unit.bytes / *bytes};
  }
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(begin, &end);
  if (end == begin || errno != 0 || !std::isfinite(value) || !(value > 0)) return std::nullopt;
  const std::string unit(end);
  double now = value * factor;
  if (whole) {
    if (now < 1 || std::floor(now) != now) return std::nullopt;
  } else {
    now = std::strtod(number_text(now).c_str(), nullptr);  // the value the text will say
  }
  return std::pair{number_text(now) + unit, now / value};
}

std::vector<std::string> default_knob_keys(const std::map<std::string, std::string>& scalars) {
  std::vector<std::string> keys;
  const auto add = [&](const std::string& key) {
    if (scalars.count(key) != 0) keys.push_back(key);
  };
  const auto compute = scalars.find("training.precision.compute");
  if (compute != scalars.end()) add("hardware.peak." + compute->second);
  for (const char* k : {"hardware.hbm.bandwidth", "hardware.hbm.capacity", "hardware.host_bandwidth"}) add(k);
  for (const char* link : {"topology.link", "topology.slice.link", "topology.dcn", "topology.intra", "topology.scale_out"}) {
    add(std::string(link) + ".bandwidth");
    add(std::string(link) + ".latency");
  }
  add("hardware.matmul_tile");
  const auto input = scalars.find("training.input.samples_per_s");
  if (input != scalars.end() && scaled(input->second, 2, false)) keys.push_back(input->first);
  add("training.micro_batch");
  return keys;
}

std::pair<double, double> step_factors(double step) {
  return {step < 1 ? 1 - step : 1 / (1 + step), 1 + step};
}

std::vector<Knob> make_knobs(const std::map<std::string, std::string>& scalars, const std::vector<std::string>& keys,
                             double step) {
  if (keys.size() > kMaxKnobs) {
    throw InputError("--knobs: " + std::to_string(keys.size()) + " knobs; a study varies at most " +
                     std::to_string(kMaxKnobs) + " (each costs two simulations)");
  }
  std::vector<std::string> known;
  for (const auto& [key, value] : scalars) known.push_back(key);
  std::vector<Knob> knobs;
  std::set<std::string> named;
  for (const auto& key : keys) {
    const auto it = scalars.find(key);
    if (it == scalars.end()) {
      throw InputError("--knobs: " + key + " is not a key of the scenario" + did_you_mean(key, known));
    }
    if (!named.insert(key).second) throw InputError("--knobs: " + key + " is named twice; name each knob once");
    Knob k;
    k.key = key;
    k.base = it->second;
    const bool whole = doubles(k.base);
    const auto [down, up] = step_factors(step);
    const auto low = scaled(k.base, whole ? 0.5 : down, whole);
    const auto high = scaled(k.base, whole ? 2.0 : up, whole);
    if (!high) {
      throw InputError("--knobs: " + key + " is \"" + k.base + "\", not a positive number (with or without a unit) that can be varied");
    }
    if (low) {
      k.low = low->first;
      k.low_ratio = low->second;
    }
    k.high = high->first;
    k.high_ratio = high->second;
    knobs.push_back(std::move(k));
  }
  return knobs;
}

}  // namespace podsim::whatif
