#include "cli/topo_command.hpp"

#include <iostream>
#include <sstream>

#include "config/topology_config.hpp"
#include "output/json_writer.hpp"
#include "output/text_table.hpp"
#include "topology/graph_analysis.hpp"
#include "util/units.hpp"

namespace podsim::cli {

namespace {

std::string shape(const topology::Topology& topo) {
  std::string s;
  for (const auto& axis : topo.axes()) {
    if (!s.empty()) s += 'x';
    s += std::to_string(axis.size);
  }
  return s;
}

void print_json(const topology::Topology& topo, const topology::TopologyFacts& facts) {
  output::JsonWriter j(2);
  j.begin_object();
  j.member("name", topo.name());
  j.member("kind", topo.kind());
  j.member("chips", facts.chips);
  j.member("links", facts.links);
  j.member("diameter", facts.diameter);
  j.member("bisection_bandwidth_Bps", facts.bisection_Bps);
  j.key("axes");
  j.begin_array();
  for (std::size_t a = 0; a < topo.axes().size(); ++a) {
    const auto& axis = topo.axes()[a];
    j.begin_object();
    j.member("name", axis.name);
    j.member("size", axis.size);
    j.member("wraparound", axis.wraparound);
    j.member("ring", axis.ring);
    j.member("link_bandwidth_Bps", axis.link_bandwidth_Bps);
    j.member("link_latency_s", to_seconds(axis.link_latency_ps));
    j.member("ring_bandwidth_Bps", facts.ring_Bps[a]);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  std::cout << j.str() << "\n";
}

void print_text(const topology::Topology& topo, const topology::TopologyFacts& facts) {
  std::ostringstream out;
  out << topo.name() << ": " << topo.kind() << " " << shape(topo) << "\n\n";
  output::TextTable summary({"", ""});
  summary.set_align(0, output::Align::kLeft);
  summary.set_align(1, output::Align::kLeft);
  summary.add_row({"chips", std::to_string(facts.chips)});
  summary.add_row({"directed links", std::to_string(facts.links)});
  summary.add_row({"diameter", std::to_string(facts.diameter) + " links"});
  summary.add_row({"bisection bandwidth", units::format_bandwidth(facts.bisection_Bps) + " per direction"});
  out << summary.render() << "\n";  // empty headers: a list of facts, not a table

  output::TextTable axes({"axis", "chips", "wraparound", "link bandwidth", "link latency",
                          "ring bandwidth per chip"});
  axes.set_align(0, output::Align::kLeft);
  axes.set_align(2, output::Align::kLeft);
  for (std::size_t a = 0; a < topo.axes().size(); ++a) {
    const auto& axis = topo.axes()[a];
    axes.add_row({axis.name, std::to_string(axis.size), axis.wraparound ? (axis.ring ? "yes" : "twisted") : "no",
                  units::format_bandwidth(axis.link_bandwidth_Bps),
                  units::format_seconds(to_seconds(axis.link_latency_ps)),
                  units::format_bandwidth(facts.ring_Bps[a])});
  }
  out << axes.render();
  std::cout << out.str();
}

}  // namespace

void run_topo(const TopoOptions& options, const Invocation& invocation) {
  const config::LoadedTopology loaded = config::load_topology(options.file, config::parse_overrides(options.sets));
  const topology::Topology topo(loaded.spec);
  const topology::TopologyFacts facts = topology::analyze(topo);
  if (!invocation.prints()) return;
  if (options.json) {
    print_json(topo, facts);
  } else {
    print_text(topo, facts);
  }
}

}  // namespace podsim::cli
