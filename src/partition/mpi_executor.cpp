#include "partition/mpi_executor.hpp"

#include <algorithm>
#include <cstring>

#include "partition/chip_partition.hpp"
#include "partition/mpi_synchronizer.hpp"

namespace podsim::partition {

collectives::ScheduleResult MpiExecutor::run(const topology::Topology& topo, const network::NetworkSpec& net,
                                             const collectives::Schedule& schedule) {
  if (sharing_ || comm_.size() == 1) return collectives::run_schedule(topo, net, schedule);
  // Not split, and run whole by every process: a simulation whose windows would cost more than
  // they save, one of flows, whose rates are global (the same answer everywhere), or one whose
  // chips wait on other chips' behalf (a symmetric lowering's mirrored dependencies).
  if (schedule.size() < net.min_partitioned_transfers || schedule.mirrored() ||
      collectives::contention_model(net, schedule) == network::ContentionModel::kFlow) {
    ++stats_.whole;
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

std::vector<std::vector<char>> MpiExecutor::share(const std::vector<double>& costs,
                                                  const std::function<std::vector<char>(std::size_t)>& work) {
  const auto size = static_cast<std::size_t>(comm_.size());
  if (size == 1 || costs.size() < 2) return ScheduleExecutor::share(costs, work);
  std::vector<std::size_t> order(costs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(size, 0.0);
  std::vector<int> owner(costs.size(), 0);
  for (const std::size_t i : order) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    owner[i] = static_cast<int>(least);
    load[least] += costs[i];
  }
  // This process's pieces, packed as (index, length, bytes) for every other process.
  std::vector<std::vector<char>> results(costs.size());
  std::vector<char> mine;
  {
    // Every run inside a piece is this process's alone, until the pieces are done (or throw).
    struct Sharing {
      bool& flag;
      explicit Sharing(bool& f) : flag(f) { flag = true; }
      ~Sharing() { flag = false; }
    } sharing(sharing_);
    for (std::size_t i = 0; i < costs.size(); ++i) {
      if (owner[i] != comm_.rank()) continue;
      results[i] = work(i);
      const std::uint64_t header[2] = {i, results[i].size()};
      const auto* h = reinterpret_cast<const char*>(header);
      mine.insert(mine.end(), h, h + sizeof header);
      mine.insert(mine.end(), results[i].begin(), results[i].end());
    }
  }
  std::vector<std::vector<char>> out(size, mine);
  out[static_cast<std::size_t>(comm_.rank())].clear();
  for (const auto& from : comm_.exchange(out)) {
    for (std::size_t at = 0; at < from.size();) {
      std::uint64_t header[2];
      std::memcpy(header, from.data() + at, sizeof header);
      at += sizeof header;
      results[header[0]].assign(from.begin() + static_cast<std::ptrdiff_t>(at),
                                from.begin() + static_cast<std::ptrdiff_t>(at + header[1]));
      at += header[1];
    }
  }
  stats_.shared += costs.size();
  return results;
}

}  // namespace podsim::partition
