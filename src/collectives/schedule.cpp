#include "collectives/schedule.hpp"

#include <algorithm>
#include <string>

#include "util/error.hpp"

namespace podsim::collectives {

TransferIndex Schedule::add(VertexId src, VertexId dst, std::uint64_t bytes,
                            std::span<const TransferIndex> deps, SimTime delay_ps, SimTime arrival_delay_ps) {
  if (transfers_.size() >= kDependencyIndex) {
    throw SimulationError("a schedule of more than " + std::to_string(kDependencyIndex) + " transfers");
  }
  const auto index = static_cast<TransferIndex>(transfers_.size());
  transfers_.push_back(PlannedTransfer{src, dst, bytes, current_collective_, current_phase_});
  total_bytes_ += static_cast<double>(bytes);
  for (const TransferIndex d : deps) mirrored_ = mirrored_ || (d & ~kDependencyIndex) != 0;
  if ((delay_ps != 0 || arrival_delay_ps != 0) && delays_.empty()) delays_.resize(index);
  if (!delays_.empty()) delays_.push_back(Delays{delay_ps, arrival_delay_ps});
  dep_items_.insert(dep_items_.end(), deps.begin(), deps.end());
  dep_begin_.push_back(static_cast<std::uint32_t>(dep_items_.size()));
  return index;
}

void Schedule::set_phase_of(TransferIndex first, std::uint32_t p) {
  for (TransferIndex i = first; i < transfers_.size(); ++i) transfers_[i].phase = p;
}

void Schedule::recount_phases(std::uint32_t current) {
  std::uint32_t last = current;
  for (const PlannedTransfer& t : transfers_) last = std::max(last, t.phase);
  current_phase_ = current;
  phases_ = last + 1;
}

std::vector<TransferIndex>& Frontier::list(VertexId c) {
  if (slot_.empty()) slot_.assign(vertices_, kNoSlot);
  if (slot_[c] == kNoSlot) {
    slot_[c] = static_cast<std::uint32_t>(lists_.size());
    owners_.push_back(c);
    lists_.emplace_back();
  }
  return lists_[slot_[c]];
}

void Frontier::merge(const Frontier& other) {
  // Each vertex's list gains the other's: the same lists whatever order the vertices come in.
  for (std::size_t k = 0; k < other.owners_.size(); ++k) {
    const auto& from = other.lists_[k];
    if (from.empty()) continue;
    auto& to = list(other.owners_[k]);
    to.insert(to.end(), from.begin(), from.end());
  }
}

std::span<const Schedule::HopImage> Schedule::hop_images(std::uint64_t hop) const {
  const auto first = std::lower_bound(hop_images_.begin(), hop_images_.end(), HopImage{hop, 0});
  auto last = first;
  while (last != hop_images_.end() && last->first == hop) ++last;
  return {first, last};
}

void Frontier::mirror(const Schedule& schedule, VertexId from, VertexId to) {
  const auto given = ready(from);
  if (given.empty()) return;
  const std::vector<TransferIndex> waits(given.begin(), given.end());  // `to`'s list may move the lists
  auto& mine = list(to);
  for (const TransferIndex t : waits) {
    if ((t & ~kDependencyIndex) != 0) {
      mine.push_back(t);  // already observed on someone's behalf
    } else {
      mine.push_back(t | (schedule.transfer(t).src == from ? kOnDeparture : kOnArrival));
    }
  }
}

void ring_pass(Schedule& schedule, const std::vector<ChipId>& ring, int steps,
               std::uint64_t chunk_bytes, const Frontier& start, Frontier& end) {
  const std::size_t n = ring.size();
  std::vector<TransferIndex> sent(n);  // sent[i]: chip ring[i]'s latest send
  std::vector<TransferIndex> deps;
  for (int step = 0; step < steps; ++step) {
    std::vector<TransferIndex> now(n);
    for (std::size_t i = 0; i < n; ++i) {
      deps.clear();
      if (step == 0) {
        const auto ready = start.ready(ring[i]);
        deps.assign(ready.begin(), ready.end());
      } else {
        deps.push_back(sent[i]);
        deps.push_back(sent[(i + n - 1) % n]);  // what ring[i] received last step
      }
      now[i] = schedule.add(ring[i], ring[(i + 1) % n], chunk_bytes, deps);
    }
    sent.swap(now);
  }
  if (steps == 0) return;
  for (std::size_t i = 0; i < n; ++i) {
    end.add(ring[i], sent[i]);
    end.add(ring[i], sent[(i + n - 1) % n]);
  }
}

void chain_pass(Schedule& schedule, const std::vector<ChipId>& order, int pieces,
                std::uint64_t piece_bytes, const Frontier& start, Frontier& end) {
  const std::size_t n = order.size();
  // last_recv[i]: the transfer that brought the current piece to order[i].
  std::vector<TransferIndex> last_send(n);
  std::vector<TransferIndex> last_recv(n);
  std::vector<bool> has_sent(n, false);
  std::vector<TransferIndex> deps;
  for (int piece = 0; piece < pieces; ++piece) {
    for (std::size_t i = 0; i + 1 < n; ++i) {
      deps.clear();
      if (i == 0 && piece == 0) {
        const auto ready = start.ready(order[0]);
        deps.assign(ready.begin(), ready.end());
      }
      if (i > 0) deps.push_back(last_recv[i]);
      if (has_sent[i]) deps.push_back(last_send[i]);
      const TransferIndex t = schedule.add(order[i], order[i + 1], piece_bytes, deps);
      last_send[i] = t;
      has_sent[i] = true;
      last_recv[i + 1] = t;
    }
  }
  if (pieces == 0) return;
  for (std::size_t i = 0; i < n; ++i) {
    if (has_sent[i]) end.add(order[i], last_send[i]);
    if (i > 0) end.add(order[i], last_recv[i]);
  }
}

void pairwise_exchange(Schedule& schedule, const std::vector<ChipId>& members,
                       std::uint64_t bytes, const Frontier& start, Frontier& end) {
  const std::size_t n = members.size();
  std::vector<TransferIndex> sent(n);
  std::vector<TransferIndex> deps;
  for (std::size_t round = 1; round < n; ++round) {
    std::vector<TransferIndex> now(n);
    for (std::size_t i = 0; i < n; ++i) {
      deps.clear();
      if (round == 1) {
        const auto ready = start.ready(members[i]);
        deps.assign(ready.begin(), ready.end());
      } else {
        deps.push_back(sent[i]);
        deps.push_back(sent[(i + n - (round - 1)) % n]);  // received last round
      }
      now[i] = schedule.add(members[i], members[(i + round) % n], bytes, deps);
    }
    sent.swap(now);
  }
  if (n < 2) return;
  for (std::size_t i = 0; i < n; ++i) {
    end.add(members[i], sent[i]);
    end.add(members[i], sent[(i + 1) % n]);  // round n−1: received from i−(n−1) = i+1
  }
}

}  // namespace podsim::collectives
