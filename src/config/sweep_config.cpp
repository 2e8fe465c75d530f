#include "config/sweep_config.hpp"

#include <algorithm>

#include "config/document.hpp"
#include "config/reader.hpp"
#include "config/scenario_config.hpp"
#include "util/checked.hpp"
#include "util/progress_line.hpp"
#include "util/suggest.hpp"

namespace podsim::config {

namespace {

constexpr std::uint64_t kMaxPoints = 10'000'000;

/// The values of one key, read from a YAML list.
SweptKey read_key(const Reader& r, const std::string& key, const YAML::Node& list, const std::string& path) {
  if (!list.IsSequence() || list.size() == 0) r.fail(key, "expected a non-empty list of values");
  SweptKey k;
  k.key = key;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node v = list[i];
    k.values.push_back(v.IsScalar() ? v.Scalar() : dump(v));
    k.where.push_back(r.sources().locate(join_path(path, key), v.Mark()));
    k.line.push_back(v.Mark().line + 1);
    if (!k.values.back().empty() && k.values.back().back() == '\n') k.values.back().pop_back();
  }
  return k;
}

/// The value of each dimension at point `index` (the last dimension varies fastest).
std::vector<std::size_t> coordinates(const std::vector<SweepDimension>& dimensions, std::uint64_t index) {
  std::vector<std::size_t> at(dimensions.size());
  for (std::size_t d = dimensions.size(); d-- > 0;) {
    at[d] = static_cast<std::size_t>(index % dimensions[d].size());
    index /= dimensions[d].size();
  }
  return at;
}

}  // namespace

std::map<std::string, std::int64_t> derive_variables(const runtime::Scenario& s) {
  const auto* multi = std::get_if<topology::MultisliceSpec>(&s.topology.layout);
  const auto* cluster = std::get_if<topology::SwitchSpec>(&s.topology.layout);
  return {{"chips", static_cast<std::int64_t>(topology::chip_count(s.topology))},
          {"slices", multi != nullptr ? multi->slices : 1},
          {"nodes", cluster != nullptr ? cluster->nodes : 1},
          {"dp", s.parallel.dp},
          {"tp", s.parallel.tp},
          {"pp", s.parallel.pp},
          {"virtual_stages", s.parallel.virtual_stages},
          {"zero", s.parallel.zero},
          {"global_batch", s.training.global_batch},
          {"micro_batch", s.training.micro_batch},
          {"seq_len", s.training.seq_len},
          {"layers", s.model.layers},
          {"hidden", s.model.hidden},
          {"ffn_hidden", s.model.ffn_hidden},
          {"heads", s.model.heads},
          {"kv_heads", s.model.kv_heads},
          {"vocab", s.model.vocab}};
}

std::uint64_t LoadedSweep::points() const {
  // load_sweep refuses sweeps whose point count overflows, so this product cannot.
  std::uint64_t n = 1;
  for (const auto& d : dimensions) n *= d.size();
  return n;
}

std::vector<Override> LoadedSweep::overrides_at(std::uint64_t index) const {
  std::vector<Override> out;
  const std::vector<std::size_t> at = coordinates(dimensions, index);
  for (std::size_t d = 0; d < dimensions.size(); ++d) {
    for (const SweptKey& k : dimensions[d].keys) {
      out.push_back(Override{k.key, k.values[at[d]], k.where[at[d]], dir});
    }
  }
  return out;
}

std::string LoadedSweep::describe(std::uint64_t index) const {
  std::string values;
  std::string where;
  const std::vector<std::size_t> at = coordinates(dimensions, index);
  for (std::size_t d = 0; d < dimensions.size(); ++d) {
    for (const SweptKey& k : dimensions[d].keys) {
      if (where.empty()) where = k.where[at[d]];
      append_joined(values, ", ", k.key + ": " + k.values[at[d]] + " on line " + std::to_string(k.line[at[d]]));
    }
  }
  std::string out = where;
  out.append(": point ").append(std::to_string(index)).append(" (").append(values).append(")");
  return out;
}

std::vector<std::string> LoadedSweep::keys() const {
  std::vector<std::string> out;
  for (const auto& d : dimensions) {
    for (const auto& k : d.keys) out.push_back(k.key);
  }
  return out;
}

LoadedSweep load_sweep(const std::filesystem::path& file, bool progress) {
  const std::string shown = display_name(file);
  SourceMap sources;
  sources.record_digests(true);
  YAML::Node root = load_yaml_file(file, shown, sources);
  LoadedSweep s;
  s.inputs = sources.inputs();
  sources.add_file("", shown);
  Reader r(root, "", sources);
  r.allow_only({"schema_version", "name", "description", "base", "axes", "zip", "derive", "skip_infeasible"});
  read_schema_version(r);

  s.file = shown;
  s.dir = file.parent_path();
  s.base = s.dir / r.text("base");
  std::error_code missing;  // the throwing overload fails on names the OS refuses (too long, …)
  if (!std::filesystem::exists(s.base, missing)) r.fail("base", "no scenario file \"" + display_name(s.base) + "\"");
  r.set_default("skip_infeasible", "true");
  s.skip_infeasible = r.boolean("skip_infeasible");

  if (r.has("axes")) {
    const YAML::Node axes = r.node("axes");
    if (!axes.IsMap()) r.fail("axes", "expected a mapping of key: [values]");
    const Reader ax = r.child("axes");
    for (const auto& entry : axes) {
      const std::string key = entry.first.Scalar();
      s.dimensions.push_back(SweepDimension{{read_key(ax, key, entry.second, "axes")}});
    }
  }
  if (r.has("zip")) {
    const YAML::Node groups = r.node("zip");
    if (!groups.IsSequence()) r.fail("zip", "expected a list of groups like - {model: [a, b], training.global_batch: [1, 2]}");
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::string path = "zip[" + std::to_string(g) + "]";
      if (!groups[g].IsMap()) r.fail("zip", "group " + std::to_string(g + 1) + " is not a mapping of key: [values]");
      const Reader group(groups[g], path, sources);
      SweepDimension dim;
      for (const auto& entry : groups[g]) {
        dim.keys.push_back(read_key(group, entry.first.Scalar(), entry.second, path));
        if (dim.keys.back().values.size() != dim.keys.front().values.size()) {
          group.fail(entry.first.Scalar(), "has " + std::to_string(dim.keys.back().values.size()) + " values but " +
                                               dim.keys.front().key + " has " +
                                               std::to_string(dim.keys.front().values.size()) +
                                               "; keys of a zip group vary together");
        }
      }
      if (!dim.keys.empty()) s.dimensions.push_back(std::move(dim));
    }
  }
  if (s.dimensions.empty()) r.fail("axes", "a sweep needs at least one key to vary (axes: or zip:)");
  // The product is checked as it grows: 16 axes of 16 values (2^64 points) once wrapped to 0.
  std::optional<std::uint64_t> points = 1;
  std::string sizes;
  for (const auto& d : s.dimensions) {
    if (points) points = checked_mul(*points, static_cast<std::uint64_t>(d.size()));
    append_joined(sizes, " × ", std::to_string(d.size()));
  }
  if (!points || *points > kMaxPoints) {
    r.fail(r.has("axes") ? "axes" : "zip", "describes " + sizes + " = " +
                                               (points ? std::to_string(*points) : std::string("more than 2^64")) +
                                               " points; podsim sweeps up to " + std::to_string(kMaxPoints) +
                                               " points per file");
  }
  std::vector<std::string> seen;
  for (const auto& key : s.keys()) {
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) r.fail("axes", "key " + key + " is swept twice");
    seen.push_back(key);
  }
  if (r.has("derive")) {
    const Reader derive = r.child("derive");
    // The base scenario's values: evaluating on them finds syntax errors and unknown names.
    const auto known = derive_variables(load_scenario(s.base, {}, false, s.inputs).scenario);
    for (const auto& entry : r.node("derive")) {
      const std::string key = entry.first.Scalar();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) derive.fail(key, "is both swept and derived");
      const std::string text = derive.text(key);
      try {
        Expression e(text);
        std::string why;
        (void)e.evaluate(known, &why);
        s.derived.push_back(DerivedKey{key, std::move(e), sources.locate("derive." + key, entry.second.Mark())});
      } catch (const InputError& e) {
        derive.fail(key, e.what());
      }
    }
  }
  // Every value alone on the base scenario must make a valid scenario (a layout that cannot
  // run is fine: the point is recorded as infeasible).
  // A dimension that names no file is checked on a reading of the base, its values applied in
  // turn (each replaces the last: the same keys), without reading or parsing a file again. The
  // document keeps every node an override made until it is dropped: it is read anew every
  // kValuesPerReading values (10^6 values on one reading held 24 GB).
  constexpr std::size_t kValuesPerReading = 256;
  std::uint64_t values = 0;
  for (const auto& dim : s.dimensions) values += dim.size();
  ProgressLine checking("sweep", "values checked", progress && values > 10'000, values, 0, 1);
  std::uint64_t checked = 0;
  for (const auto& dim : s.dimensions) {
    const bool names_files = std::any_of(dim.keys.begin(), dim.keys.end(), [](const SweptKey& k) {
      return std::find(kIncludeKeys.begin(), kIncludeKeys.end(), k.key) != kIncludeKeys.end();
    });
    std::optional<LoadedScenario> base;
    for (std::size_t i = 0; i < dim.size(); ++i) {
      if (!names_files && i % kValuesPerReading == 0) base = load_scenario(s.base, {}, false, s.inputs);
      std::vector<Override> one;
      for (const auto& k : dim.keys) one.push_back(Override{k.key, k.values[i], k.where[i], s.dir});
      try {
        if (base) {
          (void)base->again(one, true);
        } else {
          load_scenario(s.base, one, true, s.inputs);
        }
      } catch (const InfeasibleLayout&) {
      }
      checking.update(++checked, false);
    }
  }
  checking.update(checked, true);
  load_scenario(s.base, {}, false, s.inputs);  // the base alone: its files, when nothing else read them
  s.resolved_yaml = dump(root);
  return s;
}

}  // namespace podsim::config
