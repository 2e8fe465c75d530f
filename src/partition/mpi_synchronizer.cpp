#include "partition/mpi_synchronizer.hpp"

#include <cstring>

namespace podsim::partition {

MpiSynchronizer::MpiSynchronizer(const Communicator& comm, SimTime lookahead_ps, std::vector<int> owner)
    : comm_(comm), lookahead_ps_(lookahead_ps), owner_(std::move(owner)), outbox_(static_cast<std::size_t>(comm.size())) {}

void MpiSynchronizer::send_remote(const core::Event& event) {
  auto& box = outbox_[static_cast<std::size_t>(owner_[event.target])];
  const std::size_t at = box.size();
  box.resize(at + sizeof(core::Event));
  std::memcpy(box.data() + at, &event, sizeof(core::Event));
  ++remote_events_;
}

std::optional<SimTime> MpiSynchronizer::next_window_end(core::Simulator& sim) {
  const auto inbox = comm_.exchange(outbox_);
  for (auto& box : outbox_) box.clear();
  for (const auto& part : inbox) {
    for (std::size_t at = 0; at + sizeof(core::Event) <= part.size(); at += sizeof(core::Event)) {
      core::Event e;
      std::memcpy(&e, part.data() + at, sizeof(core::Event));
      sim.insert(e);
    }
  }
  const SimTime next = comm_.min(sim.next_event_time());
  if (next == kTimeInfinity) return std::nullopt;
  ++windows_;
  return next > kTimeInfinity - lookahead_ps_ ? kTimeInfinity : next + lookahead_ps_;
}

}  // namespace podsim::partition
