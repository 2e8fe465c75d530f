#pragma once

// A step's microbatches repeat: in the steady state of gradient accumulation or of a 1F1B
// pipeline, each microbatch runs the same tasks, in the same order, on the same links, as
// the one before. Once the whole executor's state at the start of one microbatch is the
// state at the start of an earlier one moved forward — in time by Δ, in each stage's task
// numbering by P, in message and microbatch numbering by M — and the programs ahead are the
// same tasks moved the same way, every later period of Δ repeats that one exactly, to the
// picosecond and to the bit: the executor can move its state forward by J periods at once
// instead of simulating them (docs/runtime.md, "Steady state").
//
// This file holds what that test needs and knows nothing of the executor: a picture of a
// state in words tagged with what each word is (StateImage), their comparison under a move
// (moved_by), and where a program stops repeating itself (ProgramPeriods).

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "parallelism/step_program.hpp"
#include "util/sim_time.hpp"

namespace podsim::runtime {

/// How one state is another moved forward.
struct StateShift {
  SimTime time = 0;                 ///< Δ
  /// Per lane (a stage's stream, StateImage::task): the move of its tasks, in its stage's
  /// program indices: the stage's P, or 0 for a stream that waits through the period (a
  /// reduction waiting for the last microbatch).
  std::vector<std::int64_t> tasks;
  std::int64_t messages = 0;        ///< M: message ids and microbatches
};

/// A state as words, each tagged: a plain value (equal under any move), a time, a task index
/// of a lane (one stream of one stage: the stage's program index of a task on that stream), or
/// a message id or microbatch.
class StateImage {
 public:
  static constexpr SimTime kNever = -1;            ///< a time not set: equal under any move
  static constexpr std::uint32_t kNone = 0xFFFF'FFFFu;  ///< a task index not set

  void raw(std::uint64_t v) { put(kRaw, v); }
  void real(double v);
  void flag(bool v) { put(kRaw, v ? 1 : 0); }
  /// Plain words appended by a component (network::LinkSharing::append_state, …).
  void raw_words(const std::vector<std::uint64_t>& words);
  void time(SimTime t) { put(kTime, static_cast<std::uint64_t>(t)); }
  void task(std::uint32_t lane, std::uint32_t index) { put(kTask + (lane << 3), index); }
  void message(std::uint64_t id) { put(kMessage, id); }
  std::size_t size() const { return words_.size(); }

  /// Whether `later` is `earlier` moved by `shift`.
  friend bool moved_by(const StateImage& earlier, const StateImage& later, const StateShift& shift);

 private:
  enum Tag : std::uint32_t { kRaw = 0, kTime = 1, kMessage = 2, kTask = 3 };  // kTask + lane · 8
  void put(std::uint32_t tag, std::uint64_t word) {
    tags_.push_back(tag);
    words_.push_back(word);
  }
  std::vector<std::uint32_t> tags_;
  std::vector<std::uint64_t> words_;
};

bool moved_by(const StateImage& earlier, const StateImage& later, const StateShift& shift);

/// Where one stage's program repeats itself: task i is task i − P moved, when every field is
/// equal but its dependencies (each P later) and its message or microbatch (M later).
class ProgramPeriods {
 public:
  explicit ProgramPeriods(const parallelism::StageProgram& program) : program_(program) {}

  /// M for a period of P tasks: the move of the first task carrying a message or microbatch in
  /// [from, from + P) to its copy P later; nothing when no task there carries one.
  std::optional<std::int64_t> message_shift(std::uint32_t period, std::uint32_t from) const;
  /// The first index i ≥ `from` (≥ period) at which task i is not task i − period moved by
  /// (period, messages); the program's size when it repeats to its end.
  std::uint32_t repeats_until(std::uint32_t period, std::int64_t messages, std::uint32_t from) const;
  /// The lowest index among tasks [from, to) and what they wait for.
  std::uint32_t earliest_read(std::uint32_t from, std::uint32_t to) const;

 private:
  bool is_copy(std::uint32_t i, std::uint32_t period, std::int64_t messages) const;
  const parallelism::StageProgram& program_;
};

}  // namespace podsim::runtime
