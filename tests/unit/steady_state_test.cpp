// The pieces of the steady-state test (runtime/steady_state.hpp): images compared under a
// move, and where a program repeats itself.
#include <gtest/gtest.h>

#include "runtime/steady_state.hpp"

namespace podsim::runtime {
namespace {

using parallelism::Task;
using parallelism::TaskKind;

TEST(StateImage, IsAnotherMovedOnlyWhenEveryWordMovesByItsKind) {
  auto image = [](SimTime t, std::uint32_t task0, std::uint32_t task1, std::uint64_t message, SimTime never) {
    StateImage im;
    im.raw(7);
    im.time(t);
    im.time(never);
    im.task(0, task0);
    im.task(1, task1);
    im.task(1, StateImage::kNone);
    im.message(message);
    im.real(0.25);
    return im;
  };
  StateShift shift;
  shift.time = 100;
  shift.tasks = {10, 0};  // lane 1 waits through the period
  shift.messages = 2;
  const StateImage then = image(5, 3, 40, 9, StateImage::kNever);
  EXPECT_TRUE(moved_by(then, image(105, 13, 40, 11, StateImage::kNever), shift));
  EXPECT_FALSE(moved_by(then, image(106, 13, 40, 11, StateImage::kNever), shift));  // a time
  EXPECT_FALSE(moved_by(then, image(105, 13, 50, 11, StateImage::kNever), shift));  // a waiting lane
  EXPECT_FALSE(moved_by(then, image(105, 13, 40, 10, StateImage::kNever), shift));  // a message
  EXPECT_FALSE(moved_by(then, image(105, 13, 40, 11, 100), shift));                 // a time set since
  StateImage longer = image(105, 13, 40, 11, StateImage::kNever);
  longer.raw(0);
  EXPECT_FALSE(moved_by(then, longer, shift));
}

/// A program of a prologue task, `copies` microbatches of three tasks (an input, a compute
/// task waiting for the input, a collective waiting for the compute task), and an epilogue.
parallelism::StageProgram program(int copies) {
  parallelism::StageProgram p;
  Task first;
  first.duration_ps = 1;
  p.add(first);
  for (int mb = 0; mb < copies; ++mb) {
    Task in;
    in.kind = TaskKind::kInput;
    in.message = static_cast<std::uint32_t>(mb);
    const auto i = p.add(in);
    Task work;
    work.duration_ps = 50;
    const auto w = p.add(work, {i});
    Task reduce;
    reduce.kind = TaskKind::kCollective;
    reduce.stream = parallelism::Stream::kDpReduce;
    reduce.bytes = 1e6;
    p.add(reduce, {w});
  }
  Task last;
  last.duration_ps = 9;
  p.add(last, {static_cast<std::uint32_t>(p.tasks.size() - 1)});
  return p;
}

TEST(ProgramPeriods, FindsWhereAProgramStopsRepeatingAndWhatItsPeriodMoves) {
  const auto p = program(5);  // tasks 0, [1 … 15], 16
  ProgramPeriods periods(p);
  EXPECT_EQ(periods.message_shift(3, 1), 1);
  EXPECT_EQ(periods.repeats_until(3, 1, 4), 16u);  // the epilogue is no copy
  EXPECT_EQ(periods.repeats_until(3, 2, 4), 4u);   // a microbatch moves by 1, not 2
  EXPECT_EQ(periods.repeats_until(2, 1, 4), 4u);   // not a period
  EXPECT_EQ(periods.repeats_until(3, 1, 2), 2u);   // before a first copy
  EXPECT_EQ(periods.earliest_read(5, 7), 4u);      // task 5 waits for 4
  EXPECT_EQ(periods.earliest_read(4, 5), 4u);      // an input waits for nothing
}

}  // namespace
}  // namespace podsim::runtime
