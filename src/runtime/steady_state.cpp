#include "runtime/steady_state.hpp"

#include <algorithm>
#include <bit>

namespace podsim::runtime {

namespace {
/// Whether a task of `kind` carries a message id (sends, receives) or a microbatch (input).
bool carries_message(parallelism::TaskKind kind) {
  return kind == parallelism::TaskKind::kSend || kind == parallelism::TaskKind::kRecv ||
         kind == parallelism::TaskKind::kInput;
}
}  // namespace

void StateImage::real(double v) { put(kRaw, std::bit_cast<std::uint64_t>(v)); }

void StateImage::raw_words(const std::vector<std::uint64_t>& words) {
  tags_.insert(tags_.end(), words.size(), kRaw);
  words_.insert(words_.end(), words.begin(), words.end());
}

bool moved_by(const StateImage& earlier, const StateImage& later, const StateShift& shift) {
  if (earlier.tags_ != later.tags_) return false;
  for (std::size_t i = 0; i < earlier.words_.size(); ++i) {
    const std::uint64_t a = earlier.words_[i];
    const std::uint64_t b = later.words_[i];
    const std::uint32_t tag = earlier.tags_[i];
    std::uint64_t expected = a;
    switch (tag & 7u) {
      case StateImage::kRaw:
        break;
      case StateImage::kTime:
        if (static_cast<SimTime>(a) != StateImage::kNever) expected = a + static_cast<std::uint64_t>(shift.time);
        break;
      case StateImage::kMessage:
        expected = a + static_cast<std::uint64_t>(shift.messages);
        break;
      default: {  // a task of lane tag >> 3
        if (a != StateImage::kNone) expected = a + static_cast<std::uint64_t>(shift.tasks.at(tag >> 3));
        break;
      }
    }
    if (b != expected) return false;
  }
  return true;
}

std::optional<std::int64_t> ProgramPeriods::message_shift(std::uint32_t period, std::uint32_t from) const {
  const auto& tasks = program_.tasks;
  for (std::uint32_t i = from; i < from + period && i + period < tasks.size(); ++i) {
    if (carries_message(tasks[i].kind)) {
      return static_cast<std::int64_t>(tasks[i + period].message) - static_cast<std::int64_t>(tasks[i].message);
    }
  }
  return std::nullopt;
}

bool ProgramPeriods::is_copy(std::uint32_t i, std::uint32_t period, std::int64_t messages) const {
  const parallelism::Task& t = program_.tasks[i];
  const parallelism::Task& o = program_.tasks[i - period];
  const std::int64_t message_move = carries_message(t.kind) ? messages : 0;
  if (t.kind != o.kind || t.stream != o.stream || t.category != o.category || t.axis != o.axis || t.op != o.op ||
      t.gemm_share != o.gemm_share || t.memory_share != o.memory_share || t.duration_ps != o.duration_ps ||
      std::bit_cast<std::uint64_t>(t.bytes) != std::bit_cast<std::uint64_t>(o.bytes) ||
      std::bit_cast<std::uint64_t>(t.flops) != std::bit_cast<std::uint64_t>(o.flops) ||
      std::bit_cast<std::uint64_t>(t.padded_flops) != std::bit_cast<std::uint64_t>(o.padded_flops) ||
      t.peer != o.peer || static_cast<std::int64_t>(t.message) != static_cast<std::int64_t>(o.message) + message_move ||
      t.deps_end - t.deps_begin != o.deps_end - o.deps_begin) {
    return false;
  }
  for (std::uint32_t k = 0; k < t.deps_end - t.deps_begin; ++k) {
    if (program_.deps[t.deps_begin + k] != program_.deps[o.deps_begin + k] + period) return false;
  }
  return true;
}

std::uint32_t ProgramPeriods::repeats_until(std::uint32_t period, std::int64_t messages, std::uint32_t from) const {
  const auto n = static_cast<std::uint32_t>(program_.tasks.size());
  if (period == 0 || from < period) return from;
  // Asked once per repeat found: the scan is as long as the run of periods it then skips.
  std::uint32_t i = from;
  while (i < n && is_copy(i, period, messages)) ++i;
  return i;
}

std::uint32_t ProgramPeriods::earliest_read(std::uint32_t from, std::uint32_t to) const {
  std::uint32_t lowest = from;
  const auto n = static_cast<std::uint32_t>(program_.tasks.size());
  for (std::uint32_t i = from; i < std::min(to, n); ++i) {
    const parallelism::Task& t = program_.tasks[i];
    for (std::uint32_t k = t.deps_begin; k < t.deps_end; ++k) lowest = std::min(lowest, program_.deps[k]);
  }
  return lowest;
}

}  // namespace podsim::runtime
