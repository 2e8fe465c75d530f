#include "partition/mpi_synchronizer.hpp"

#include <cstring>
#include <string>

#include "util/error.hpp"

namespace podsim::partition {

MpiSynchronizer::MpiSynchronizer(const Communicator& comm, SimTime lookahead_ps, std::vector<int> owner)
    : comm_(comm), lookahead_ps_(lookahead_ps), owner_(std::move(owner)), outbox_(static_cast<std::size_t>(comm.size())) {}

void MpiSynchronizer::send_remote(const core::Event& event) {
  // Caught where it is made rather than where it lands: an event for another process must
  // not be due before this window ends, or that process may already have passed its time.
  if (event.time < window_end_) {
    throw SimulationError("an event for another process is due inside the current window (lookahead " +
                          std::to_string(lookahead_ps_) + " ps): kind " + std::to_string(event.kind) + " from entity " +
                          std::to_string(event.origin()) + " to entity " + std::to_string(event.target) +
                          " at " + std::to_string(event.time) + " ps, window ends at " + std::to_string(window_end_) +
                          " ps");
  }
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
  window_end_ = next > kTimeInfinity - lookahead_ps_ ? kTimeInfinity : next + lookahead_ps_;
  return window_end_;
}

}  // namespace podsim::partition
