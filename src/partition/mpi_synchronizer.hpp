#pragma once

#include <cstdint>
#include <vector>

#include "core/simulator.hpp"
#include "partition/communicator.hpp"

namespace podsim::partition {

/// Conservative windowed synchronization (YAWNS): all processes agree on the earliest
/// pending event time T anywhere; each then runs its events before T + lookahead, where
/// lookahead is the smallest latency of any link between two processes, so no event it
/// sends can be due inside the window. Between windows the processes swap the events they
/// sent each other, and agree on the next T with an all-reduce (idle time is skipped).
class MpiSynchronizer final : public core::Synchronizer {
 public:
  /// `owner[e]` is the process that simulates entity e.
  MpiSynchronizer(const Communicator& comm, SimTime lookahead_ps, std::vector<int> owner);

  void send_remote(const core::Event& event) override;
  std::optional<SimTime> next_window_end(core::Simulator& sim) override;

  std::uint64_t windows() const { return windows_; }
  std::uint64_t remote_events() const { return remote_events_; }

 private:
  const Communicator& comm_;
  SimTime lookahead_ps_;
  SimTime window_end_ = 0;  ///< end of the window being run
  std::vector<int> owner_;
  std::vector<std::vector<char>> outbox_;
  std::uint64_t windows_ = 0;
  std::uint64_t remote_events_ = 0;
};

}  // namespace podsim::partition
