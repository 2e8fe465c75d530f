#pragma once

#include <array>
#include <cstdint>
#include <cstddef>
#include <vector>

#include "core/event.hpp"

namespace podsim::core {

/// Pending events, smallest first in the order of `event_before`.
///
/// A radix heap: a discrete-event queue is monotone (nothing is ever scheduled before
/// the last event taken out), so events can be kept in 65 buckets by the highest bit in
/// which their time differs from the last minimum. Pushing is O(1); popping scans at most
/// 64 buckets and moves each event down a bucket at most 64 times over its life. Events
/// at exactly the current minimum time are ordered by `tie`, so the total order (time,
/// priority, origin, sequence) is kept exactly: those a refill brings down are sorted once
/// (`now_`, taken from its back), those pushed at that time afterwards wait in a binary heap
/// (`fresh_`), and the next event is the smaller of the two fronts. (A heap of all of them
/// cost a quarter of a contention-aware step, whose flows end thousands at one time.)
///
/// Looking at the top moves the minimum forward without taking anything out, so a push
/// may legally come earlier than that minimum (a partitioned run receives its peers' events
/// after it has peeked at its own next one). Such events wait in `early_`, a binary heap
/// in event order: they all precede everything in the buckets.
class EventQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  /// The next event. Precondition: !empty().
  const Event& top();
  /// Time of the next event. Precondition: !empty().
  SimTime top_time() { return top().time; }

  /// Adds an event. Precondition: event.time >= the time of every event popped so far.
  void push(const Event& event);
  /// Removes and returns the next event. Precondition: !empty().
  Event pop();
  void reserve(std::size_t n) { now_.reserve(n / 8 + 16); }
  /// Every pending event, in order (the queue is unchanged).
  std::vector<Event> pending() const;
  /// Removes every pending event and returns them in order; the queue then takes events
  /// from `at` on (a run moved forward in time: Simulator::move_forward).
  std::vector<Event> drain(SimTime at);

 private:
  static std::size_t bucket_of(SimTime time, SimTime last);
  /// Moves the bucket holding the smallest time into the buckets below it; afterwards
  /// `now_` holds every event at the new minimum time.
  void refill();

  /// The run (now_) or heap (fresh_) holding the next event at time last_, refilled first
  /// when both are empty. Precondition: neither the queue nor early_ is empty.
  std::vector<Event>& next_at_now();

  std::array<std::vector<Event>, 65> buckets_;  // buckets_[0] unused: see now_
  std::vector<Event> now_;                      // sorted by tie, largest first; all at time last_
  std::vector<Event> fresh_;                    // binary heap by tie, all at time last_
  std::vector<Event> early_;                    // heap in event order, all before last_
  std::uint64_t occupied_ = 0;                  // bit b-1 set: buckets_[b] is not empty
  SimTime last_ = 0;
  std::size_t size_ = 0;
};

}  // namespace podsim::core
