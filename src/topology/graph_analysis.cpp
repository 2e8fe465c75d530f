#include "topology/graph_analysis.hpp"

#include <algorithm>
#include <limits>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <boost/graph/visitors.hpp>

namespace podsim::topology {

namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

Graph make_graph(const Topology& topo, std::optional<LinkTier> only_tier) {
  Graph g(topo.vertices());
  for (const Link& l : topo.links()) {
    if (only_tier && l.tier != *only_tier) continue;
    boost::add_edge(l.src, l.dst, g);
  }
  return g;
}

/// Largest flow from the chips of side A to those of side B, every link a capacity: the
/// general form, for switches joined to switches (a leaf-spine fabric).
double max_flow(const Topology& topo, const std::vector<char>& in_a) {
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, double,
                      boost::property<boost::edge_residual_capacity_t, double,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const auto n = topo.vertices();
  FlowGraph g(n + 2);
  auto capacity = boost::get(boost::edge_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  auto add = [&](std::size_t from, std::size_t to, double c) {
    const auto e = boost::add_edge(from, to, g).first;
    const auto r = boost::add_edge(to, from, g).first;
    capacity[e] = c;
    capacity[r] = 0;
    reverse[e] = r;
    reverse[r] = e;
  };
  double unbounded = 0;
  for (const Link& l : topo.links()) {
    add(l.src, l.dst, l.bandwidth_Bps);
    unbounded += l.bandwidth_Bps;
  }
  const std::size_t source = n;
  const std::size_t sink = n + 1;
  for (ChipId c = 0; c < topo.chips(); ++c) {
    if (in_a[c]) {
      add(source, c, unbounded);
    } else {
      add(c, sink, unbounded);
    }
  }
  return boost::push_relabel_max_flow(g, source, sink);
}

/// Bandwidth from side A (`in_a[chip]`) to side B. Switches are non-blocking: through a
/// switch, A can push min(A's ports into it, B's ports out of it).
double cut_bandwidth(const Topology& topo, const std::vector<char>& in_a) {
  const std::uint32_t chips = topo.chips();
  for (const Link& l : topo.links()) {
    if (l.src >= chips && l.dst >= chips) return max_flow(topo, in_a);
  }
  double direct = 0;
  std::vector<double> into_switch(topo.vertices(), 0.0);
  std::vector<double> out_of_switch(topo.vertices(), 0.0);
  for (const Link& l : topo.links()) {
    const bool src_chip = l.src < chips;
    const bool dst_chip = l.dst < chips;
    if (src_chip && dst_chip) {
      if (in_a[l.src] && !in_a[l.dst]) direct += l.bandwidth_Bps;
    } else if (src_chip && in_a[l.src]) {
      into_switch[l.dst] += l.bandwidth_Bps;
    } else if (dst_chip && !in_a[l.dst]) {
      out_of_switch[l.src] += l.bandwidth_Bps;
    }
  }
  for (VertexId v = chips; v < topo.vertices(); ++v) {
    direct += std::min(into_switch[v], out_of_switch[v]);
  }
  return direct;
}

}  // namespace

std::vector<int> hop_distances(const Topology& topo, VertexId source,
                               std::optional<LinkTier> only_tier) {
  const Graph g = make_graph(topo, only_tier);
  std::vector<int> distance(topo.vertices(), -1);
  distance[source] = 0;
  std::vector<boost::default_color_type> color(topo.vertices());
  auto record = boost::record_distances(distance.data(), boost::on_tree_edge());
  boost::breadth_first_search(
      g, boost::vertex(source, g),
      boost::visitor(boost::make_bfs_visitor(record))
          .color_map(boost::make_iterator_property_map(color.begin(),
                                                       boost::get(boost::vertex_index, g))));
  return distance;
}

TopologyFacts analyze(const Topology& topo) {
  TopologyFacts facts;
  facts.chips = topo.chips();
  facts.links = topo.links().size();

  for (ChipId c = 1; c < topo.chips(); ++c) facts.diameter = std::max(facts.diameter, topo.hops(0, c));

  facts.bisection_Bps = std::numeric_limits<double>::infinity();
  const auto& axes = topo.axes();
  std::vector<char> in_a(topo.chips());
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].size < 2) continue;
    for (ChipId c = 0; c < topo.chips(); ++c) {
      in_a[c] = topo.coord(c)[a] < axes[a].size / 2 ? 1 : 0;
    }
    facts.bisection_Bps = std::min(facts.bisection_Bps, cut_bandwidth(topo, in_a));
  }
  if (facts.bisection_Bps == std::numeric_limits<double>::infinity()) facts.bisection_Bps = 0;

  for (const Axis& axis : axes) {
    const bool both_ways = axis.tier == LinkTier::kIci && axis.ring && axis.size >= 3;
    facts.ring_Bps.push_back(axis.size < 2 ? 0.0
                                           : axis.link_bandwidth_Bps * (both_ways ? 2.0 : 1.0));
  }
  return facts;
}

}  // namespace podsim::topology
