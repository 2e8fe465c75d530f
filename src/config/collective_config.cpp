#include "config/collective_config.hpp"

#include "config/document.hpp"
#include "config/topology_name.hpp"
#include "config/model_reader.hpp"
#include "config/network_reader.hpp"
#include "config/topology_reader.hpp"
#include "util/error.hpp"
#include "util/suggest.hpp"
#include "util/units.hpp"

namespace podsim::config {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(sep, begin);
    std::string item = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    out.push_back(item);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return out;
}

/// A YAML sequence of the comma-separated items of `text`.
YAML::Node as_list(const std::string& text) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const std::string& item : split(text, ',')) list.push_back(item);
  return list;
}

constexpr std::size_t kMaxSizes = 256;

}  // namespace

std::vector<std::uint64_t> parse_sizes(const std::string& text) {
  std::vector<std::uint64_t> sizes;
  for (const std::string& item : split(text, ',')) {
    const std::size_t dots = item.find("..");
    if (dots == std::string::npos) {
      sizes.push_back(units::parse_bytes(item));
      if (sizes.back() == 0) throw InputError("a collective of 0 bytes moves nothing; sizes start at 1 B");
      continue;
    }
    const std::uint64_t from = units::parse_bytes(item.substr(0, dots));
    const std::uint64_t to = units::parse_bytes(item.substr(dots + 2));
    if (from == 0 || to < from) {
      throw InputError("a range \"" + item + "\" needs 0 < start <= end");
    }
    for (std::uint64_t s = from; sizes.size() <= kMaxSizes; s *= 2) {
      sizes.push_back(s);
      if (s > to / 2) break;  // the next doubling would pass `to` (or overflow)
    }
  }
  if (sizes.size() > kMaxSizes) throw InputError("more than " + std::to_string(kMaxSizes) + " sizes");
  return sizes;
}

CollectiveRequest load_collective_request(const CollectiveArgs& args) {
  if (args.topology_file.empty()) throw InputError("--topology: a topology file is required");
  const std::filesystem::path file(args.topology_file);
  const std::string shown = display_name(file);
  SourceMap sources;
  YAML::Node root(YAML::NodeType::Map);
  root["topology"] = load_yaml_file(file, shown, sources);
  sources.add_file("topology", shown);
  inline_topology_includes(root["topology"], "topology", file.parent_path(), sources);
  if (!args.hardware_file.empty()) {
    root["hardware"] = load_yaml_file(args.hardware_file, display_name(args.hardware_file), sources);
    sources.add_file("hardware", display_name(args.hardware_file));
  }

  // Each flag becomes a value in the document, so --set and errors treat them alike.
  auto flag = [&](const std::string& section, const std::string& key, const std::string& flag_name,
                  const std::string& value, const YAML::Node& node) {
    root[section][key] = node;
    sources.add_flag(section + "." + key, flag_name + " " + value);
  };
  flag("network", "model", "--network", args.network, YAML::Node(args.network));
  flag("collective", "op", "--op", args.op, YAML::Node(args.op));
  flag("collective", "algorithm", "--algorithm", args.algorithm, YAML::Node(args.algorithm));
  flag("collective", "protocol", "--protocol", args.protocol, YAML::Node(args.protocol));
  flag("collective", "axes", "--axes", args.axes, as_list(args.axes));
  flag("collective", "sizes", "--sizes", args.sizes, as_list(args.sizes));
  apply_overrides_renaming(root, "topology", parse_overrides(args.sets), sources);

  Reader top(root, "", sources);
  top.allow_only({"topology", "hardware", "network", "collective"});
  CollectiveRequest request;
  Reader topo_reader = top.child("topology");
  request.topology = read_topology(topo_reader);
  if (root["hardware"]) {
    Reader hardware_reader = top.child("hardware");
    request.chip = read_hardware(hardware_reader);
    request.topology = topology::with_link_efficiency(request.topology, request.chip->efficiency.ici,
                                                      request.chip->efficiency.dcn);
  }
  Reader net_reader = top.child("network");
  request.network = read_network(net_reader);

  Reader c = top.child("collective");
  c.allow_only({"op", "algorithm", "protocol", "axes", "sizes"});
  request.op = *collectives::op_from_name(c.choice("op", collectives::op_names()));
  std::vector<std::string> algorithms = collectives::algorithm_names();
  const std::string algorithm = c.text("algorithm");
  const auto parsed_algorithm = collectives::algorithm_from_name(algorithm);
  if (!parsed_algorithm) c.choice("algorithm", algorithms);  // throws with the choices
  request.algorithm = *parsed_algorithm;
  const auto parsed_protocol = collectives::protocol_from_name(c.text("protocol"));
  if (!parsed_protocol) c.choice("protocol", collectives::protocol_names());  // throws with the choices
  request.protocol = *parsed_protocol;

  const std::vector<std::string> names = topology::axis_names(request.topology);
  const YAML::Node axes = c.node("axes");
  if (!axes.IsSequence() || axes.size() == 0) c.fail("axes", "expected axis names like [x, y] or [all]");
  for (const auto& a : axes) {
    const std::string name = a.IsScalar() ? a.Scalar() : "";
    if (name == "all") {
      request.axes = names;
      continue;
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      c.fail("axes", "unknown axis \"" + name + "\"" + did_you_mean(name, names) +
                         "; this topology's axes are " + join_choices(names) + " (or all)");
    }
    if (std::find(request.axes.begin(), request.axes.end(), name) == request.axes.end()) {
      request.axes.push_back(name);
    }
  }

  const YAML::Node sizes = c.node("sizes");
  std::string joined;
  if (sizes.IsSequence()) {
    for (const auto& s : sizes) append_joined(joined, ",", s.IsScalar() ? s.Scalar() : std::string("?"));
  } else if (sizes.IsScalar()) {
    joined = sizes.Scalar();
  }
  try {
    request.sizes = parse_sizes(joined);
  } catch (const InputError& e) {
    c.fail("sizes", e.what());
  }
  request.resolved_yaml = dump(root);
  request.inputs = sources.inputs();
  return request;
}

}  // namespace podsim::config
