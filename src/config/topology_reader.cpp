#include "config/topology_reader.hpp"

#include <algorithm>

#include "collectives/collective_spec.hpp"
#include "config/document.hpp"
#include "util/error.hpp"

namespace podsim::config {

namespace {

/// Largest machine podsim accepts: far above any pod (TPU v5p multislice tops at 18,432),
/// low enough that a typo in dims is an error rather than an out-of-memory crash.
constexpr std::int64_t kMaxChips = 1 << 20;

const std::vector<std::string> kKinds{"torus", "mesh", "switch", "multislice"};
const std::vector<std::string> kGridKinds{"torus", "mesh"};

topology::LinkSpec read_link(const Reader& parent, const std::string& key) {
  const Reader r = parent.child(key);
  r.allow_only({"bandwidth", "latency"});
  const double bandwidth = r.bandwidth("bandwidth");
  const SimTime latency = r.duration("latency");
  // Real links are well inside these; beyond them a unit is almost surely wrong.
  // From a 1 MB/s management port to a 100 TB/s optical bundle; latencies up to 100 ms
  // (across a continent): outside that, a unit prefix is almost surely wrong.
  r.check_plausible("bandwidth", bandwidth, units::PlausibleRange{1e6, 1e14, 1e11, "B/s", "link"});
  r.check_plausible("latency", to_seconds(latency), units::PlausibleRange{0, 0.1, 1e-6, "s", "link"});
  return topology::LinkSpec{bandwidth, latency};
}


/// Shape check of a twisted torus: three axes, extents k and 2k, at least one of each... or
/// two 2k: k×k×2k or k×2k×2k in any order.
bool twistable(const std::vector<int>& dims) {
  if (dims.size() != 3) return false;
  const int k = *std::min_element(dims.begin(), dims.end());
  int longs = 0;
  for (int d : dims) {
    if (d == 2 * k) {
      ++longs;
    } else if (d != k) {
      return false;
    }
  }
  return k >= 3 && longs >= 1 && longs <= 2;
}

topology::GridSpec read_grid(Reader& r, bool is_slice) {
  const std::string kind = r.choice("kind", is_slice ? kGridKinds : kKinds);
  const std::vector<std::int64_t> dims64 = r.integer_list("dims", 1, kMaxChips);
  if (dims64.size() > 3) r.fail("dims", "a grid has 1 to 3 axes (x, y, z), got " + std::to_string(dims64.size()));
  std::vector<int> dims(dims64.begin(), dims64.end());
  std::int64_t chips = 1;
  for (auto d : dims64) chips *= d;
  if (chips > kMaxChips) r.fail("dims", "describes " + std::to_string(chips) + " chips; podsim accepts up to " + std::to_string(kMaxChips));

  const bool torus = kind == "torus";
  if (!r.has("wraparound")) {
    // A torus wraps every axis that can carry a ring (3+ chips); a mesh none.
    std::string flags = "[";
    for (std::size_t a = 0; a < dims.size(); ++a) flags += std::string(a ? ", " : "") + (torus && dims[a] >= 3 ? "true" : "false");
    r.set_default("wraparound", flags + "]");
  }
  const std::vector<bool> wrap = r.boolean_list("wraparound");
  if (wrap.size() != dims.size()) {
    r.fail("wraparound", "has " + std::to_string(wrap.size()) + " entries but dims has " +
                             std::to_string(dims.size()) + "; give one per axis");
  }
  for (std::size_t a = 0; a < dims.size(); ++a) {
    if (!wrap[a]) continue;
    if (!torus) r.fail("wraparound", "a mesh has no wraparound links; use kind: torus");
    if (dims[a] < 3) {
      r.fail("wraparound", "entry " + std::to_string(a + 1) + " is true but that axis has " + std::to_string(dims[a]) +
                               " chips; a wrap needs at least 3 (on 1 or 2 chips the neighbours are already joined)");
    }
  }
  r.set_default("twisted", "false");
  const bool twisted = r.boolean("twisted");
  if (twisted) {
    if (!torus || !std::all_of(wrap.begin(), wrap.end(), [](bool w) { return w; })) {
      r.fail("twisted", "a twisted torus wraps every axis; set kind: torus and every wraparound to true");
    }
    if (!twistable(dims)) {
      r.fail("twisted", "a twisted torus has three axes of k and 2k chips (k×k×2k or k×2k×2k, k >= 3)");
    }
  }
  return topology::GridSpec{dims, wrap, twisted, read_link(r, "link")};
}

const std::vector<std::string> kArchs{"volta", "ampere", "hopper"};

bool nccl_only(topology::CollectiveAlgorithm a) {
  using A = topology::CollectiveAlgorithm;
  return a == A::kTree || a == A::kNvls || a == A::kNvlsTree || a == A::kCollNet;
}

/// The `nccl:` section of a GPU cluster: what NCCL finds on it, and the fitted launch cost.
topology::NcclSpec read_nccl(const Reader& parent) {
  Reader r = parent.child("nccl");
  r.allow_only({"arch", "nvls", "collnet", "launch"});
  topology::NcclSpec spec;
  const std::string arch = r.choice("arch", kArchs);
  spec.arch = arch == "volta" ? topology::GpuArch::kVolta : arch == "ampere" ? topology::GpuArch::kAmpere
                                                                             : topology::GpuArch::kHopper;
  r.set_default("nvls", "false");
  r.set_default("collnet", "false");
  r.set_default("launch", "0 us");
  spec.nvls = r.boolean("nvls");
  if (spec.nvls && spec.arch != topology::GpuArch::kHopper) {
    r.fail("nvls", "NVLS (NVLink SHARP) needs Hopper GPUs on 3rd-generation NVSwitches; set arch: hopper or nvls: false");
  }
  spec.collnet = r.boolean("collnet");
  spec.launch_ps = r.duration("launch");
  r.check_plausible("launch", to_seconds(spec.launch_ps), units::PlausibleRange{0, 1e-3, 1e-5, "s", "collective launch"});
  return spec;
}

/// The scale-out fabric of a GPU cluster: leaves, rails, oversubscription.
topology::FabricSpec read_fabric(const Reader& parent, std::int64_t nodes) {
  topology::FabricSpec fabric;
  if (!parent.has("fabric")) return fabric;
  Reader r = parent.child("fabric");
  r.allow_only({"nodes_per_leaf", "rail_optimized", "oversubscription"});
  r.set_default("nodes_per_leaf", std::to_string(nodes));
  r.set_default("rail_optimized", "false");
  r.set_default("oversubscription", "1");
  fabric.nodes_per_leaf = static_cast<int>(r.integer("nodes_per_leaf", 1, nodes));
  fabric.rail_optimized = r.boolean("rail_optimized");
  fabric.oversubscription = r.real("oversubscription", 1, 1024);
  if (fabric.oversubscription > 1 && fabric.nodes_per_leaf == nodes && !fabric.rail_optimized) {
    r.fail("oversubscription", "has no effect on a fabric of one leaf (nodes_per_leaf equals nodes and no rails): no "
                               "traffic crosses the spine; set nodes_per_leaf to the nodes one leaf serves");
  }
  return fabric;
}

/// The optional `collectives:` section: what a collective asking for `auto` runs.
topology::CollectivePolicy read_policy(const Reader& parent, bool has_nccl) {
  topology::CollectivePolicy policy;
  if (!parent.has("collectives")) return policy;
  Reader r = parent.child("collectives");
  r.allow_only({"algorithm", "protocol", "pieces"});
  r.set_default("algorithm", "auto");
  r.set_default("protocol", "auto");
  r.set_default("pieces", "auto");
  if (r.text("pieces") != "auto") {
    policy.hierarchical_pieces = static_cast<int>(r.integer("pieces", 1, collectives::kMaxHierarchicalPieces));
  }
  const std::string algorithm = r.text("algorithm");
  const auto parsed = collectives::algorithm_from_name(algorithm);
  if (!parsed) r.choice("algorithm", collectives::algorithm_names());  // throws with the choices
  policy.algorithm = *parsed;
  if (nccl_only(policy.algorithm) && !has_nccl) {
    r.fail("algorithm", "\"" + algorithm + "\" is an NCCL algorithm; it needs a GPU cluster (kind: switch) with an nccl section");
  }
  const std::string protocol = r.text("protocol");
  const auto proto = collectives::protocol_from_name(protocol);
  if (!proto) r.choice("protocol", collectives::protocol_names());
  policy.protocol = *proto;
  if (policy.protocol != topology::CollectiveProtocol::kAuto && !has_nccl) {
    r.fail("protocol", "protocols are NCCL's; they need a GPU cluster (kind: switch) with an nccl section");
  }
  return policy;
}

}  // namespace

void inline_topology_includes(YAML::Node topology, const std::string& path,
                              const std::filesystem::path& dir, SourceMap& sources) {
  if (!topology.IsMap()) return;
  const YAML::Node& self = topology;
  const YAML::Node kind = self["kind"];
  if (!kind.IsDefined() || !kind.IsScalar() || kind.Scalar() != "multislice") return;
  include_file(topology, path, "slice", dir, sources);
}

topology::TopologySpec read_topology(Reader& r) {
  if (!r.has("kind")) {
    // Without a kind, check against every kind's keys, so that a misspelt "kind" is
    // reported as such rather than as missing.
    r.allow_only({"schema_version", "name", "kind", "dims", "wraparound", "twisted", "link", "nodes",
                  "chips_per_node", "intra", "scale_out", "fabric", "nccl", "slices", "slice", "dcn", "collectives"});
  }
  const std::string kind = r.choice("kind", kKinds);
  if (kind == "torus" || kind == "mesh") {
    r.allow_only({"schema_version", "name", "kind", "dims", "wraparound", "twisted", "link", "collectives"});
    read_document_header(r);
    const std::string name = r.text("name");
    topology::GridSpec grid = read_grid(r, false);
    return topology::TopologySpec{name, std::move(grid), read_policy(r, false)};
  }
  if (kind == "switch") {
    r.allow_only({"schema_version", "name", "kind", "nodes", "chips_per_node", "intra", "scale_out", "fabric", "nccl",
                  "collectives"});
    read_document_header(r);
    const std::string name = r.text("name");
    const std::int64_t nodes = r.integer("nodes", 1, kMaxChips);
    const std::int64_t per_node = r.integer("chips_per_node", 1, 4096);
    if (nodes * per_node > kMaxChips) r.fail("nodes", "describes more than " + std::to_string(kMaxChips) + " chips");
    const topology::LinkSpec intra = read_link(r, "intra");
    const topology::LinkSpec scale_out = read_link(r, "scale_out");
    const topology::FabricSpec fabric = read_fabric(r, nodes);
    std::optional<topology::NcclSpec> nccl;
    if (r.has("nccl")) nccl = read_nccl(r);
    topology::CollectivePolicy policy = read_policy(r, nccl.has_value());
    policy.nccl = nccl;
    return topology::TopologySpec{
        name, topology::SwitchSpec{static_cast<int>(nodes), static_cast<int>(per_node), intra, scale_out, fabric},
        policy};
  }
  r.allow_only({"schema_version", "name", "kind", "slices", "slice", "dcn", "collectives"});
  read_document_header(r);
  const std::string name = r.text("name");
  const std::int64_t slices = r.integer("slices", 1, 4096);
  Reader slice = r.child("slice");
  // An included slice is a whole topology file: its header is allowed and checked.
  slice.allow_only({"schema_version", "name", "kind", "dims", "wraparound", "twisted", "link"});
  if (slice.has("schema_version")) read_document_header(slice);
  topology::GridSpec grid = read_grid(slice, true);
  std::int64_t chips = slices;
  for (int d : grid.dims) chips *= d;
  if (chips > kMaxChips) r.fail("slices", "describes more than " + std::to_string(kMaxChips) + " chips");
  const topology::LinkSpec dcn = read_link(r, "dcn");
  return topology::TopologySpec{name, topology::MultisliceSpec{static_cast<int>(slices), std::move(grid), dcn},
                                read_policy(r, false)};
}

}  // namespace podsim::config
