#pragma once

#include <cstdint>

#include "util/sim_time.hpp"

namespace podsim::core {

/// Identifies a simulated entity (a chip, a link, an executor...). Ids are chosen by the
/// model, not by the engine, so that they are the same however entities are spread over
/// MPI ranks.
using EntityId = std::uint32_t;

/// Event priority: at equal time, a smaller priority runs first (0..255).
using Priority = std::uint8_t;

/// One scheduled event: plain data, so that it can be copied between ranks.
///
/// Events are totally ordered by (time, priority, origin, sequence): `origin` is the entity
/// that scheduled it and `sequence` that entity's own running count. Nothing in the key
/// depends on the order in which a rank happened to insert events, so the order is the
/// same on 1 or N ranks.
///
/// priority, origin and sequence are packed into one 64-bit `tie` (8 | 24 | 32 bits) so
/// that an event is 40 bytes and two comparisons order any pair: this is the engine's
/// hottest data. The simulator refuses origins and sequences that would not fit.
/// Largest entity id that can schedule events (24 bits).
inline constexpr EntityId kMaxOrigin = 0xFF'FFFF;

struct Event {
  SimTime time = 0;
  std::uint64_t tie = 0;
  EntityId target = 0;
  /// What the target should do; meaning is private to the target's handler.
  std::uint32_t kind = 0;
  /// Handler-defined payload.
  std::uint64_t a = 0;
  std::uint64_t b = 0;

  Priority priority() const { return static_cast<Priority>(tie >> 56); }
  EntityId origin() const { return static_cast<EntityId>((tie >> 32) & kMaxOrigin); }
  std::uint32_t sequence() const { return static_cast<std::uint32_t>(tie); }
};


/// Strict total order of events; see Event.
inline bool event_before(const Event& x, const Event& y) {
  return x.time != y.time ? x.time < y.time : x.tie < y.tie;
}

inline std::uint64_t make_tie(Priority priority, EntityId origin, std::uint32_t sequence) {
  return (static_cast<std::uint64_t>(priority) << 56) | (static_cast<std::uint64_t>(origin) << 32) |
         sequence;
}

}  // namespace podsim::core
