#include "core/event_queue.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace podsim::core {

namespace {
/// Min-heap order of events that share one time.
bool later_tie(const Event& x, const Event& y) { return x.tie > y.tie; }
/// Min-heap order of events of any time.
bool later(const Event& x, const Event& y) { return event_before(y, x); }
}  // namespace

std::size_t EventQueue::bucket_of(SimTime time, SimTime last) {
  const auto diff = static_cast<std::uint64_t>(time) ^ static_cast<std::uint64_t>(last);
  return diff == 0 ? 0 : static_cast<std::size_t>(64 - std::countl_zero(diff));
}

void EventQueue::push(const Event& event) {
  ++size_;
  if (event.time < last_) {
    early_.push_back(event);
    std::push_heap(early_.begin(), early_.end(), later);
    return;
  }
  const std::size_t b = bucket_of(event.time, last_);
  if (b == 0) {
    fresh_.push_back(event);
    std::push_heap(fresh_.begin(), fresh_.end(), later_tie);
  } else {
    buckets_[b].push_back(event);
    occupied_ |= 1ull << (b - 1);
  }
}

void EventQueue::refill() {
  const auto b = static_cast<std::size_t>(std::countr_zero(occupied_)) + 1;
  std::vector<Event>& from = buckets_[b];
  SimTime smallest = from.front().time;
  for (const Event& e : from) smallest = std::min(smallest, e.time);
  last_ = smallest;
  // Every event of bucket b differs from the new minimum below bit b: it moves down.
  for (const Event& e : from) {
    const std::size_t to = bucket_of(e.time, last_);
    if (to == 0) {
      now_.push_back(e);
    } else {
      buckets_[to].push_back(e);
      occupied_ |= 1ull << (to - 1);
    }
  }
  from.clear();
  occupied_ &= ~(1ull << (b - 1));
  std::sort(now_.begin(), now_.end(), later_tie);
}

std::vector<Event>& EventQueue::next_at_now() {
  if (now_.empty() && fresh_.empty()) refill();
  if (fresh_.empty()) return now_;
  if (now_.empty()) return fresh_;
  return now_.back().tie < fresh_.front().tie ? now_ : fresh_;
}

const Event& EventQueue::top() {
  if (!early_.empty()) return early_.front();
  std::vector<Event>& next = next_at_now();
  return &next == &now_ ? now_.back() : fresh_.front();
}

Event EventQueue::pop() {
  if (!early_.empty()) {
    std::pop_heap(early_.begin(), early_.end(), later);
    const Event e = early_.back();
    early_.pop_back();
    --size_;
    return e;
  }
  std::vector<Event>& next = next_at_now();
  if (&next == &fresh_) std::pop_heap(fresh_.begin(), fresh_.end(), later_tie);
  const Event e = next.back();
  next.pop_back();
  --size_;
  return e;
}

std::vector<Event> EventQueue::pending() const {
  std::vector<Event> all(early_.begin(), early_.end());
  all.insert(all.end(), now_.begin(), now_.end());
  all.insert(all.end(), fresh_.begin(), fresh_.end());
  for (const auto& bucket : buckets_) all.insert(all.end(), bucket.begin(), bucket.end());
  std::sort(all.begin(), all.end(), event_before);
  return all;
}

std::vector<Event> EventQueue::drain(SimTime at) {
  std::vector<Event> all = pending();
  *this = EventQueue{};
  last_ = at;
  return all;
}

}  // namespace podsim::core
