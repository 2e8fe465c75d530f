#pragma once

#include <cstdint>

#include "util/sim_time.hpp"

namespace podsim::core {

/// Identifies a simulated entity (a chip, a link, an executor...). Ids are chosen by the
/// model, not by the engine, so that they are the same however entities are spread over
/// MPI ranks.
using EntityId = std::uint32_t;

/// Event priority: at equal time, a smaller priority runs first.
using Priority = std::uint16_t;

/// One scheduled event: plain data, so that it can be copied between ranks.
///
/// Events are totally ordered by (time, priority, origin, sequence): `origin` is the entity
/// that scheduled it and `sequence` that entity's own running count. Nothing in the key
/// depends on the order in which a rank happened to insert events, so the order is the
/// same on 1 or N ranks.
struct Event {
  SimTime time = 0;
  /// priority in the top 16 bits, origin entity in the low 48: one comparison for both.
  std::uint64_t rank_key = 0;
  std::uint64_t sequence = 0;
  EntityId target = 0;
  /// What the target should do; meaning is private to the target's handler.
  std::uint32_t kind = 0;
  /// Handler-defined payload.
  std::uint64_t a = 0;
  std::uint64_t b = 0;

  Priority priority() const { return static_cast<Priority>(rank_key >> 48); }
  EntityId origin() const { return static_cast<EntityId>(rank_key & 0xFFFF'FFFF'FFFFull); }
};

/// Strict total order of events; see Event.
inline bool event_before(const Event& x, const Event& y) {
  if (x.time != y.time) return x.time < y.time;
  if (x.rank_key != y.rank_key) return x.rank_key < y.rank_key;
  return x.sequence < y.sequence;
}

inline std::uint64_t make_rank_key(Priority priority, EntityId origin) {
  return (static_cast<std::uint64_t>(priority) << 48) | origin;
}

}  // namespace podsim::core
