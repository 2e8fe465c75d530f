#pragma once

// Which item each process does next when independent items (a sweep's points, a plan's
// layouts) are shared out: in contiguous runs, not one by one in turn.
//
// A process's simulations share what they measure (runtime::CommMemo, StepMemo): points next to
// each other in a sweep's order differ in one axis and mostly measure the same collectives and
// often run the same step. Dealt in turn, two processes each measured nearly everything, and the
// benchmark sweep ran no faster on two processes than on one (1.17 against 1.18 s, 2026-12-09).
// So process p starts at the front of the p-th of `processes` equal runs of the items and works
// forward through it; a process whose run is done takes the last item of the run with the most
// left, so the run's owner keeps its front and the thief works backwards through a contiguous
// tail. Which process does which item never changes a result (the memos are exact); it only
// changes how often a measurement is taken again.

#include <cstddef>
#include <optional>
#include <vector>

namespace podsim::partition {

class ContiguousDealer {
 public:
  /// `items` item positions [0, items) over `processes` processes (at least 1).
  ContiguousDealer(std::size_t items, int processes);

  /// The position of the next item for `process`, or nothing when every item is dealt.
  std::optional<std::size_t> next(int process);

  /// Items not yet dealt.
  std::size_t left() const { return left_; }

 private:
  struct Run {
    std::size_t front = 0;  ///< the owner's next item
    std::size_t back = 0;   ///< one past the run's last item not yet dealt
  };
  std::vector<Run> runs_;
  std::size_t left_ = 0;
};

}  // namespace podsim::partition
