#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

#include "core/event_queue.hpp"
#include "core/simulator.hpp"
#include "util/error.hpp"

namespace podsim::core {
namespace {

/// Records every event it receives, optionally scheduling follow-ups.
class Recorder final : public EventHandler {
 public:
  explicit Recorder(EntityId self) : self_(self) {}
  void handle(Simulator& sim, const Event& e) override {
    seen.push_back(e);
    times.push_back(sim.now());
    if (e.kind == 1 && e.a > 0) {
      // Chain: schedule the next link of a chain `a` more times, 10 ps apart.
      sim.schedule(sim.now() + 10, self_, self_, 1, e.a - 1);
    }
  }
  std::vector<Event> seen;
  std::vector<SimTime> times;

 private:
  EntityId self_;
};

TEST(EventQueue, PopsInTimePriorityOriginSequenceOrder) {
  EventQueue q;
  // Inserted deliberately out of order.
  q.push(Event{5, make_tie(0, 2, 0), 0, 0, 0, 0});
  q.push(Event{3, make_tie(1, 0, 0), 0, 0, 0, 0});
  q.push(Event{3, make_tie(0, 9, 1), 0, 0, 0, 0});
  q.push(Event{3, make_tie(0, 9, 0), 0, 0, 0, 0});
  q.push(Event{3, make_tie(0, 1, 7), 0, 0, 0, 0});
  q.push(Event{1, make_tie(7, 7, 7), 0, 0, 0, 0});
  std::vector<std::tuple<SimTime, Priority, EntityId, std::uint64_t>> order;
  while (!q.empty()) {
    const Event e = q.pop();
    order.emplace_back(e.time, e.priority(), e.origin(), e.sequence());
  }
  const std::vector<std::tuple<SimTime, Priority, EntityId, std::uint64_t>> expected{
      {1, 7, 7, 7}, {3, 0, 1, 7}, {3, 0, 9, 0}, {3, 0, 9, 1}, {3, 1, 0, 0}, {5, 0, 2, 0}};
  EXPECT_EQ(order, expected);
}

/// Pushes 20000 random events whose times never precede the last one popped (as a
/// simulation's do), spread up to 2^max_bits ps; pops every third, peeks every
/// `peek_every`-th (0: never); checks every pop against a sort of what is pending.
void check_against_sort(std::uint64_t seed, int max_bits, int peek_every) {
  std::mt19937_64 rng(seed);
  std::vector<Event> events;
  EventQueue q;
  SimTime last_popped = 0;
  for (int i = 0; i < 20000; ++i) {
    const SimTime spread = SimTime{1} << (rng() % static_cast<std::uint64_t>(max_bits + 1));
    Event e{last_popped + static_cast<SimTime>(rng() % static_cast<std::uint64_t>(spread)),
            make_tie(static_cast<Priority>(rng() % 3), static_cast<EntityId>(rng() % 50),
                     static_cast<std::uint32_t>(rng() % 100)),
            0, 0, 0, 0};
    events.push_back(e);
    q.push(e);
    if (peek_every > 0 && i % peek_every == 0) (void)q.top_time();  // moves the radix heap's minimum forward
    if (i % 3 == 0) {
      // Interleave pops to exercise sift-down on a partly filled heap.
      const Event popped = q.pop();
      last_popped = popped.time;
      auto it = std::min_element(events.begin(), events.end(), event_before);
      ASSERT_FALSE(event_before(*it, popped) || event_before(popped, *it));
      events.erase(it);
    }
  }
  std::sort(events.begin(), events.end(), event_before);
  for (const Event& e : events) {
    const Event popped = q.pop();
    ASSERT_EQ(popped.time, e.time);
    ASSERT_EQ(popped.tie, e.tie);
  }
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, MatchesASortOnRandomKeys) {
  // Spreads from 0 to 2^40 ps exercise every bucket of the radix heap.
  check_against_sort(42, 40, 0);
}

TEST(EventQueue, PushesBeforeAPeekedMinimumComeOutFirst) {
  // A partitioned run peeks at its next event (3209), then receives a peer's event due
  // earlier (3197) but after everything it has run (3190): the peer's must come out first.
  // The radix heap had moved its minimum to 3209 and filed 3197 as if it were later.
  EventQueue q;
  q.push(Event{3190, make_tie(0, 1, 0), 0, 0, 0, 0});
  EXPECT_EQ(q.pop().time, 3190);
  q.push(Event{3209, make_tie(0, 1, 1), 0, 0, 0, 0});
  q.push(Event{4000, make_tie(0, 1, 2), 0, 0, 0, 0});
  EXPECT_EQ(q.top_time(), 3209);
  q.push(Event{3197, make_tie(0, 2, 0), 0, 0, 0, 0});
  q.push(Event{3197, make_tie(0, 0, 5), 0, 0, 0, 0});
  q.push(Event{3200, make_tie(0, 2, 1), 0, 0, 0, 0});
  EXPECT_EQ(q.top_time(), 3197);
  std::vector<std::pair<SimTime, EntityId>> order;
  while (!q.empty()) {
    const Event e = q.pop();
    order.emplace_back(e.time, e.origin());
  }
  const std::vector<std::pair<SimTime, EntityId>> expected{{3197, 0}, {3197, 2}, {3200, 2}, {3209, 1}, {4000, 1}};
  EXPECT_EQ(order, expected);
}

TEST(EventQueue, MatchesASortWhenManyEventsShareATime) {
  // Rounds of 60 events due at one time, then pops at that time that each may push another
  // event due then (a contention-aware step's flows end thousands at one time, and each ending
  // starts the next): the sorted run a refill brings down and the heap of later pushes both
  // hold events that come next, and every pop must take the smaller of the two.
  std::mt19937_64 rng(11);
  EventQueue q;
  std::vector<Event> pending;
  auto push = [&](SimTime t) {
    const Event e{t, make_tie(static_cast<Priority>(rng() % 3), static_cast<EntityId>(rng() % 1000),
                              static_cast<std::uint32_t>(rng())), 0, 0, 0, 0};
    pending.push_back(e);
    q.push(e);
  };
  for (SimTime t = 10; t <= 2000; t += 10) {
    for (int i = 0; i < 60; ++i) push(t + static_cast<SimTime>(rng() % 2) * 5);
    for (int i = 0; i < 60; ++i) {
      const Event popped = q.pop();
      const auto it = std::min_element(pending.begin(), pending.end(), event_before);
      ASSERT_EQ(popped.time, it->time);
      ASSERT_EQ(popped.tie, it->tie);
      pending.erase(it);
      if (rng() % 2 == 0) push(popped.time);
    }
  }
}

TEST(EventQueue, MatchesASortWhenPushesFollowPeeks) {
  // Pushes between the last popped time and a peeked minimum, as a partitioned run's windows do.
  check_against_sort(7, 29, 4);
}

TEST(Simulator, RunsEventsInOrderAndAdvancesTheClock) {
  SequentialSynchronizer sync;
  Simulator sim(sync);
  Recorder r(0);
  sim.bind(0, r);
  sim.schedule(100, 0, 0, 0, 1);
  sim.schedule(50, 0, 0, 0, 2);
  sim.schedule(50, 0, 0, 1, 3);  // a chain of 3 follow-ups, at 60, 70, 80
  sim.run();
  ASSERT_EQ(r.times, (std::vector<SimTime>{50, 50, 60, 70, 80, 100}));
  EXPECT_EQ(r.seen[0].a, 2u);  // same time and origin: scheduling order (sequence) decides
  EXPECT_EQ(sim.now(), 100);
  EXPECT_EQ(sim.events_processed(), 6u);
  EXPECT_TRUE(sim.idle());
}

TEST(Simulator, SameInputsGiveTheSameEventSequence) {
  auto run_once = [] {
    SequentialSynchronizer sync;
    Simulator sim(sync);
    std::vector<Recorder> rs;
    rs.reserve(8);
    for (EntityId i = 0; i < 8; ++i) {
      rs.emplace_back(i);
      sim.bind(i, rs.back());
    }
    std::mt19937_64 rng(7);
    for (int i = 0; i < 500; ++i) {
      const auto origin = static_cast<EntityId>(rng() % 8);
      sim.schedule(static_cast<SimTime>(rng() % 100), origin, static_cast<EntityId>(rng() % 8),
                   1, rng() % 4);
    }
    sim.run();
    std::vector<std::tuple<SimTime, EntityId, std::uint32_t>> trace;
    for (const auto& r : rs) {
      for (const Event& e : r.seen) trace.emplace_back(e.time, e.origin(), e.sequence());
    }
    return trace;
  };
  EXPECT_EQ(run_once(), run_once());
}

TEST(Simulator, RefusesToScheduleInThePastOrToAnUnboundEntity) {
  SequentialSynchronizer sync;
  Simulator sim(sync);
  Recorder r(0);
  sim.bind(0, r);
  sim.schedule(10, 0, 0, 0);
  sim.run();
  EXPECT_THROW(sim.schedule(5, 0, 0, 0), SimulationError);
  sim.schedule(20, 0, 3, 0);
  EXPECT_THROW(sim.run(), SimulationError);
}

TEST(Simulator, RunWindowStopsBeforeTheWindowEnd) {
  SequentialSynchronizer sync;
  Simulator sim(sync);
  Recorder r(0);
  sim.bind(0, r);
  sim.schedule(10, 0, 0, 0);
  sim.schedule(20, 0, 0, 0);
  sim.run_window(20);
  EXPECT_EQ(r.seen.size(), 1u);
  EXPECT_EQ(sim.next_event_time(), 20);
}

TEST(Simulator, MovingForwardKeepsThePendingEventsOrderAndCountsWhatItStandsFor) {
  SequentialSynchronizer sync;
  Simulator sim(sync);
  Recorder r(0);
  sim.bind(0, r);
  sim.schedule(10, 0, 0, 0, 1);
  sim.run_window(11);  // the clock at 10
  sim.schedule(30, 1, 0, 0, 2);
  sim.schedule(30, 0, 0, 0, 3);  // origin 0 before origin 1 at the same time
  sim.schedule(20, 0, 0, 0, 4);
  const std::vector<Event> pending = sim.pending_events();
  ASSERT_EQ(pending.size(), 3u);
  EXPECT_EQ(pending[0].a, 4u);
  EXPECT_EQ(pending[1].a, 3u);
  EXPECT_EQ(pending[2].a, 2u);
  sim.move_forward(1000, 40, [](Event& e) { e.b = e.a * 10; });
  EXPECT_EQ(sim.now(), 1010);
  EXPECT_EQ(sim.events_processed(), 41u);
  sim.schedule(1030, 0, 0, 0, 5);  // after the moved events of its origin at that time
  sim.run();
  ASSERT_EQ(r.times, (std::vector<SimTime>{10, 1020, 1030, 1030, 1030}));
  EXPECT_EQ(r.seen[1].a, 4u);
  EXPECT_EQ(r.seen[1].b, 40u);
  EXPECT_EQ(r.seen[2].a, 3u);
  EXPECT_EQ(r.seen[3].a, 5u);
  EXPECT_EQ(r.seen[4].a, 2u);
  EXPECT_EQ(sim.events_processed(), 45u);
  EXPECT_THROW(sim.move_forward(kMaxStepPs, 0, [](Event&) {}), SimulationError);
}

}  // namespace
}  // namespace podsim::core
