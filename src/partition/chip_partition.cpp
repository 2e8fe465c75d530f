#include "partition/chip_partition.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace podsim::partition {

VertexPartition partition_vertices(const topology::Topology& topo, const collectives::Schedule& schedule, int parts) {
  const std::uint32_t chips = topo.chips();
  // A transfer costs events per chunk; 64 KiB stands for one chunk's worth of fixed cost.
  std::vector<double> work(chips, 0.0);
  for (collectives::TransferIndex i = 0; i < schedule.size(); ++i) {
    const auto& t = schedule.transfer(i);
    if (t.src < chips) work[t.src] += 65536.0 + static_cast<double>(t.bytes);  // a switch's work follows its chips
  }
  double total = 0;
  for (double w : work) total += w;
  VertexPartition p;
  p.owner.assign(topo.vertices(), 0);
  double before = 0;
  for (topology::ChipId c = 0; c < chips; ++c) {
    // The chip goes to the block its work starts in.
    const double position = total > 0 ? before / total : double(c) / chips;
    p.owner[c] = std::min(parts - 1, static_cast<int>(position * parts));
    before += work[c];
  }
  for (topology::VertexId v = chips; v < topo.vertices(); ++v) {
    // A node switch has links to its own chips only; a shared fabric to all of them.
    const auto& out = topo.out_links(v);
    const bool one_node = !out.empty() && out.size() < chips;
    p.owner[v] = one_node ? p.owner[topo.link(out.front()).dst] : 0;
  }
  for (const auto& l : topo.links()) {
    if (p.owner[l.src] == p.owner[l.dst]) continue;
    if (l.latency_ps <= 0) {
      throw SimulationError("cannot split the simulation over processes: a link between them has no latency, so "
                            "there is no lookahead; give every link a latency");
    }
    p.lookahead_ps = std::min(p.lookahead_ps, l.latency_ps);
  }
  return p;
}

}  // namespace podsim::partition
