#pragma once

#include <cstddef>
#include <vector>

#include "core/event.hpp"

namespace podsim::core {

/// Pending events, smallest first in the order of `event_before`.
///
/// A 4-ary implicit heap: half the depth of a binary heap, and the four children of a node
/// share a cache line pair, which is what makes it fast for the 10^4-10^6 pending events
/// a pod simulation keeps.
class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  /// The next event. Precondition: !empty().
  const Event& top() const { return heap_.front(); }

  void push(const Event& event);
  /// Removes and returns the next event. Precondition: !empty().
  Event pop();
  void reserve(std::size_t n) { heap_.reserve(n); }
  void clear() { heap_.clear(); }

 private:
  std::vector<Event> heap_;
};

}  // namespace podsim::core
