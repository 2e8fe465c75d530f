#include "core/event_queue.hpp"

#include <utility>

namespace podsim::core {

namespace {
constexpr std::size_t kArity = 4;
}

void EventQueue::push(const Event& event) {
  // Sift up with a hole: parents move down until the new event's place is found.
  std::size_t hole = heap_.size();
  heap_.emplace_back();
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!event_before(event, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = event;
}

Event EventQueue::pop() {
  Event result = heap_.front();
  Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return result;
  // Sift the former last element down from the root.
  std::size_t hole = 0;
  while (true) {
    const std::size_t first_child = hole * kArity + 1;
    if (first_child >= n) break;
    std::size_t best = first_child;
    const std::size_t end = first_child + kArity < n ? first_child + kArity : n;
    for (std::size_t c = first_child + 1; c < end; ++c) {
      if (event_before(heap_[c], heap_[best])) best = c;
    }
    if (!event_before(heap_[best], last)) break;
    heap_[hole] = heap_[best];
    hole = best;
  }
  heap_[hole] = last;
  return result;
}

}  // namespace podsim::core
