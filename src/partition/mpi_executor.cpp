#include "partition/mpi_executor.hpp"

#include <algorithm>

#include "partition/chip_partition.hpp"
#include "partition/mpi_synchronizer.hpp"

namespace podsim::partition {

collectives::ScheduleResult MpiExecutor::run(const topology::Topology& topo, const network::NetworkSpec& net,
                                             const collectives::Schedule& schedule) {
  // The flow model's rates are global: every process runs it whole (same answer everywhere).
  if (comm_.size() == 1 || schedule.size() < net.min_partitioned_transfers ||
      collectives::contention_model(net, schedule) == network::ContentionModel::kFlow) {
    return collectives::run_schedule(topo, net, schedule);
  }

  const VertexPartition part = partition_vertices(topo, schedule, comm_.size());
  // Entities: vertices, then links (a link lives with its source vertex).
  std::vector<int> owner(part.owner);
  for (const auto& l : topo.links()) owner.push_back(part.owner[l.src]);
  network::LocalVertices local(topo.vertices());
  for (topology::VertexId v = 0; v < topo.vertices(); ++v) local[v] = part.owner[v] == comm_.rank() ? 1 : 0;

  MpiSynchronizer sync(comm_, part.lookahead_ps, std::move(owner));
  collectives::ScheduleResult r = collectives::run_schedule(topo, net, schedule, collectives::RunPart{&sync, local});

  // Every process ends with the whole answer.
  std::vector<std::int64_t> finish(r.finish_ps.begin(), r.finish_ps.end());
  comm_.max(finish);
  r.finish_ps.assign(finish.begin(), finish.end());
  std::vector<double> bytes(r.links.size());
  std::vector<std::int64_t> busy(r.links.size());
  for (std::size_t l = 0; l < r.links.size(); ++l) {
    bytes[l] = r.links[l].bytes;
    busy[l] = r.links[l].busy_ps;
  }
  comm_.sum(bytes);
  comm_.sum(busy);
  for (std::size_t l = 0; l < r.links.size(); ++l) r.links[l] = network::LinkUsage{bytes[l], busy[l]};
  r.events = static_cast<std::uint64_t>(comm_.sum(static_cast<std::int64_t>(r.events)));

  ++stats_.runs;
  stats_.windows += sync.windows();
  stats_.remote_events += static_cast<std::uint64_t>(comm_.sum(static_cast<std::int64_t>(sync.remote_events())));
  stats_.events += r.events;
  stats_.simulated_ps += finish.empty() ? 0 : *std::max_element(finish.begin(), finish.end());
  return r;
}

}  // namespace podsim::partition
