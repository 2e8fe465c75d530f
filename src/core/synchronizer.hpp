#pragma once

#include <optional>

#include "core/event.hpp"
#include "util/sim_time.hpp"

namespace podsim::core {

class Simulator;

/// Decides how far the simulator may advance before it must talk to anyone else.
///
/// The simulator processes events window by window: before each window it asks the
/// synchronizer for the window's exclusive end time. A parallel (MPI) synchronizer
/// exchanges events with other ranks there and agrees on a safe end (next global event
/// time + lookahead); the sequential one lets the simulator run to the end at once.
class Synchronizer {
 public:
  virtual ~Synchronizer() = default;
  /// Events with time < the returned value may be processed now. nullopt ends the run.
  virtual std::optional<SimTime> next_window_end(Simulator& sim) = 0;
  /// Takes an event for an entity that lives elsewhere (marked remote in the simulator).
  /// Its key is already assigned; it must reach the other side before that side's window
  /// passes its time (guaranteed when its delay is at least the lookahead).
  virtual void send_remote(const Event& event);
};

/// One process, no one to wait for: a single window that ends when the queue is empty.
class SequentialSynchronizer final : public Synchronizer {
 public:
  std::optional<SimTime> next_window_end(Simulator& sim) override;
};

}  // namespace podsim::core
