#include "core/simulator.hpp"

#include <string>

#include "util/error.hpp"

namespace podsim::core {

void Synchronizer::send_remote(const Event& event) {
  throw SimulationError("event for entity " + std::to_string(event.target) +
                        ", which is remote, in a run without remote entities");
}

std::optional<SimTime> SequentialSynchronizer::next_window_end(Simulator& sim) {
  if (sim.idle()) return std::nullopt;
  return kTimeInfinity;
}

void Simulator::bind(EntityId entity, EventHandler& handler) {
  if (entity >= handlers_.size()) {
    handlers_.resize(entity + 1, nullptr);
  }
  handlers_[entity] = &handler;
}

void Simulator::mark_remote(EntityId entity) {
  if (entity >= remote_.size()) remote_.resize(entity + 1, 0);
  remote_[entity] = 1;
}

void Simulator::schedule(SimTime time, EntityId origin, EntityId target, std::uint32_t kind,
                         std::uint64_t a, std::uint64_t b, Priority priority) {
  if (time < now_) {
    throw SimulationError("event scheduled in the past: at " + std::to_string(time) +
                          " ps while the clock is at " + std::to_string(now_) + " ps");
  }
  if (time > kMaxStepPs) {
    // Every duration is at most kMaxStepPs, so now + duration cannot overflow; past the
    // horizon the run is refused rather than wrapped.
    throw SimulationError("event scheduled at " + std::to_string(time) +
                          " ps, beyond the simulator's horizon of 2^60 ps (13 simulated days)");
  }
  if (origin >= sequence_.size()) {
    if (origin > kMaxOrigin) throw SimulationError("entity id " + std::to_string(origin) + " is too large to schedule events");
    sequence_.resize(origin + 1, 0);
  }
  const std::uint32_t sequence = sequence_[origin]++;
  if (sequence == 0xFFFF'FFFFu) {
    throw SimulationError("entity " + std::to_string(origin) + " scheduled more than 2^32 events");
  }
  const Event event{time, make_tie(priority, origin, sequence), target, kind, a, b};
  if (target < remote_.size() && remote_[target] != 0) {
    sync_->send_remote(event);
    return;
  }
  queue_.push(event);
}

void Simulator::insert(const Event& event) {
  if (event.time < now_) {
    throw SimulationError("remote event arrived in the past (lookahead violated): kind " + std::to_string(event.kind) +
                          " for entity " + std::to_string(event.target) + " from entity " +
                          std::to_string(event.origin()) + " at " + std::to_string(event.time) +
                          " ps, but the clock is at " + std::to_string(now_) + " ps");
  }
  queue_.push(event);
}

void Simulator::move_forward(SimTime by, std::uint64_t events, const std::function<void(Event&)>& edit) {
  if (by < 0 || now_ > kMaxStepPs - by) throw SimulationError("a run moved beyond the simulator's horizon of 2^60 ps");
  now_ += by;
  std::vector<Event> pending = queue_.drain(now_);
  for (Event& e : pending) {
    if (e.time > kMaxStepPs - by) throw SimulationError("a run moved beyond the simulator's horizon of 2^60 ps");
    e.time += by;
    edit(e);
    queue_.push(e);
  }
  events_processed_ += events;
}

void Simulator::run_window(SimTime end) {
  while (!queue_.empty() && queue_.top_time() < end) {
    const Event event = queue_.pop();
    now_ = event.time;
    EventHandler* handler = event.target < handlers_.size() ? handlers_[event.target] : nullptr;
    if (handler == nullptr) {
      throw SimulationError("event for entity " + std::to_string(event.target) +
                            " which has no handler");
    }
    ++events_processed_;
    handler->handle(*this, event);
  }
}

void Simulator::run() {
  while (auto end = sync_->next_window_end(*this)) {
    run_window(*end);
  }
}

}  // namespace podsim::core
