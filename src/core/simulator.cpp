#include "core/simulator.hpp"

#include <string>

#include "util/error.hpp"

namespace podsim::core {

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

void Simulator::schedule(SimTime time, EntityId origin, EntityId target, std::uint32_t kind,
                         std::uint64_t a, std::uint64_t b, Priority priority) {
  if (time < now_) {
    throw SimulationError("event scheduled in the past: at " + std::to_string(time) +
                          " ps while the clock is at " + std::to_string(now_) + " ps");
  }
  if (origin >= sequence_.size()) sequence_.resize(origin + 1, 0);
  queue_.push(Event{time, make_rank_key(priority, origin), sequence_[origin]++, target, kind, a, b});
}

void Simulator::insert(const Event& event) {
  if (event.time < now_) {
    throw SimulationError("remote event arrived in the past (lookahead violated)");
  }
  queue_.push(event);
}

void Simulator::run_window(SimTime end) {
  while (!queue_.empty() && queue_.top().time < end) {
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
