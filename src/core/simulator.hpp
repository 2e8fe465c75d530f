#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/event.hpp"
#include "core/event_queue.hpp"
#include "core/synchronizer.hpp"

namespace podsim::core {

class Simulator;

/// Receives the events addressed to the entities it is bound to.
class EventHandler {
 public:
  virtual void handle(Simulator& sim, const Event& event) = 0;

 protected:
  ~EventHandler() = default;
};

/// The discrete-event engine: a clock, a queue and a table of handlers.
///
/// No globals: several simulators can live in one process. The engine knows nothing of
/// chips or links; models bind handlers to entity ids and schedule events between them.
class Simulator {
 public:
  /// Uses `sync` to decide window ends; it must outlive the simulator.
  explicit Simulator(Synchronizer& sync) : sync_(&sync) {}

  /// Routes events addressed to `entity` to `handler` (which must outlive the simulator).
  void bind(EntityId entity, EventHandler& handler);
  /// Events addressed to `entity` go to the synchronizer (another process simulates it).
  void mark_remote(EntityId entity);

  /// Schedules an event at absolute time `time` (>= now) for `target`, created by `origin`
  /// (<= kMaxOrigin). One origin may schedule up to 2^32 events.
  void schedule(SimTime time, EntityId origin, EntityId target, std::uint32_t kind,
                std::uint64_t a = 0, std::uint64_t b = 0, Priority priority = 0);

  /// Inserts an event whose key was assigned elsewhere (another rank). Keeps its order.
  void insert(const Event& event);

  /// Processes events until none is left (or the synchronizer ends the run).
  void run();

  /// Processes every event with time < `end`; the clock stops at the last event run.
  void run_window(SimTime end);

  SimTime now() const { return now_; }
  bool idle() const { return queue_.empty(); }
  /// Time of the next pending event, kTimeInfinity when there is none.
  SimTime next_event_time() { return queue_.empty() ? kTimeInfinity : queue_.top_time(); }
  std::uint64_t events_processed() const { return events_processed_; }
  std::size_t pending() const { return queue_.size(); }
  void reserve(std::size_t pending_events) { queue_.reserve(pending_events); }
  /// Every pending event, in the order they will run.
  std::vector<Event> pending_events() const { return queue_.pending(); }
  /// Moves the run `by` ps forward: the clock and every pending event (each passed to `edit`
  /// with its new time, to move what its payload refers to), in their order, and counts
  /// `events` processed that were not simulated. For a handler that has found its state
  /// repeating (runtime/steady_state.hpp); the events pushed afterwards follow the pending
  /// ones in the tie order as they would have.
  void move_forward(SimTime by, std::uint64_t events, const std::function<void(Event&)>& edit);

 private:
  Synchronizer* sync_;
  EventQueue queue_;
  std::vector<EventHandler*> handlers_;
  std::vector<char> remote_;  // per entity: simulated elsewhere
  std::vector<std::uint32_t> sequence_;  // per origin entity
  SimTime now_ = 0;
  std::uint64_t events_processed_ = 0;
};

}  // namespace podsim::core
